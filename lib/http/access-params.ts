/**
 * The request's parameters as parameter constraints see them (lib/sys/acl-params.ts): each
 * parameter sent, with the value its field coerced it to (what the handler will use) and how
 * that value compares (its kind, case, and the field it is an alias of). A parameter no field
 * declares, or input that failed its field's check (the request is then refused after
 * authorization), is compared as sent.
 */
import type { AccessParam, ParamKind } from '../types';
import type { Field, FieldKind, Fields } from './fields';
import type { DerivedParams } from './path';

const KINDS: Partial<Record<FieldKind, ParamKind>> = {
  string: 'string',
  int: 'int',
  bool: 'bool',
  duration: 'duration',
  list: 'list',
  map: 'map',
};

export function accessParams(
  fields: Fields,
  input: Record<string, unknown>,
  coerced: Record<string, unknown> | undefined,
  /** Values the handler will use that the request carries inside another parameter (PathSpec.derivedParams). */
  derived?: DerivedParams,
): AccessParam[] {
  const values = derived && coerced ? derived.values(coerced) : {};
  const extra = Object.keys(values).map((name): AccessParam => {
    const field = derived && Object.hasOwn(derived.fields, name) ? derived.fields[name] : undefined;
    const kind = field ? KINDS[field.kind] : undefined;
    const compareAs = field?.foldCase ? 'lower-case' : field?.compareAs;
    return {
      names: [name.toLowerCase()],
      value: values[name],
      derived: true,
      ...(kind ? { kind } : {}),
      ...(compareAs ? { compareAs } : {}),
    };
  });
  return [...sentParams(fields, input, coerced), ...extra];
}

function sentParams(fields: Fields, input: Record<string, unknown>, coerced: Record<string, unknown> | undefined): AccessParam[] {
  return Object.keys(input).map((name) => {
    const field: Field | undefined = Object.hasOwn(fields, name) && fields[name]?.in !== 'path' ? fields[name] : undefined;
    const names = [name.toLowerCase(), ...(field?.aliasOf ? [field.aliasOf.toLowerCase()] : [])];
    const kind = field ? KINDS[field.kind] : undefined;
    if (!field || !kind || !coerced || !Object.hasOwn(coerced, name)) return { names, value: input[name] };
    return {
      names,
      value: coerced[name],
      kind,
      ...(field.foldCase ? { compareAs: 'lower-case' as const } : field.compareAs ? { compareAs: field.compareAs } : {}),
    };
  });
}
