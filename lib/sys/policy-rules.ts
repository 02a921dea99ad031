/**
 * Policy documents and their evaluation, pure, as the reference server does it. A document
 * (JSON or HCL) has `path` rules: capabilities (or the legacy `policy` word) and parameter
 * constraints. The rules of all of a token's policies are merged by pattern (deny wipes the
 * rest; allowed/denied values append, an empty list meaning "any value" wins; required
 * parameters are a union). A request is decided by the exact rule for its path if there is one,
 * else by the most specific glob (`*` at the end) or segment wildcard (`+`) rule.
 * Keys this code does not enforce are refused when a policy is written, never stored and ignored.
 */
import { InvalidInput } from '../domain-errors';
import { fromJson, isHclObject, parseHcl, type HclItem, type HclObject, type HclValue } from './hcl';

export const CAPABILITIES = ['create', 'read', 'update', 'delete', 'list', 'sudo', 'deny', 'patch'] as const;
export type Capability = (typeof CAPABILITIES)[number];
/** What a request does; `write` (the catalog's) is create or update. */
export type Operation = 'read' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'write';

type ParamMap = Map<string, unknown[]>;

export interface Permissions {
  capabilities: Set<Capability>;
  /** Parameter name (lower case) -> allowed values; an empty list allows any value; `*` any name. */
  allowed?: ParamMap;
  denied?: ParamMap;
  required: string[];
}

export interface PathRule extends Permissions {
  pattern: string;
}

export interface PolicyDocument {
  rules: PathRule[];
}

const LEGACY: Record<string, Capability[]> = {
  deny: ['deny'],
  read: ['read', 'list'],
  write: ['create', 'read', 'update', 'delete', 'list'],
  sudo: ['create', 'read', 'update', 'delete', 'list', 'sudo'],
};
const RULE_KEYS = new Set(['capabilities', 'policy', 'allowed_parameters', 'denied_parameters', 'required_parameters']);
const UNSUPPORTED_RULE_KEYS = new Set([
  'min_wrapping_ttl',
  'max_wrapping_ttl',
  'mfa_methods',
  'control_group',
  'pagination_limit',
  'list_scan_response_keys_filter_path',
  'expiration',
  'subscribe_event_types',
]);

const fail = (msg: string): never => {
  throw new InvalidInput(`failed to parse policy: ${msg}`);
};

/** Parses a document given as JSON or HCL text, or as an object; 400 naming what is wrong. */
export function parsePolicy(input: unknown): PolicyDocument {
  let tree: HclValue;
  if (typeof input === 'string') {
    const text = input.trim();
    if (text.startsWith('{') || text.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        fail('the policy document is not valid JSON');
      }
      tree = fromJson(parsed);
    } else tree = parseHcl(input);
  } else if (input && typeof input === 'object' && !Array.isArray(input)) tree = fromJson(input);
  else return fail('expected a JSON object or an HCL document');
  if (!isHclObject(tree)) return fail('expected a JSON object');
  return { rules: topLevel(tree) };
}

function topLevel(doc: HclObject): PathRule[] {
  const rules: PathRule[] = [];
  for (const item of doc.items) {
    const [key, ...labels] = item.keys;
    if (key === 'name' && !labels.length) continue; // informational, as the reference takes it
    if (key !== 'path') fail(`unknown key "${key}": a policy document has "path" rules only`);
    if (labels.length > 1) fail('a "path" block takes exactly one path');
    if (labels.length === 1) {
      rules.push(pathRule(labels[0]!, item.value));
      continue;
    }
    for (const entry of asObject(item.value, '"path"').items) {
      if (entry.keys.length !== 1) fail('a "path" entry takes exactly one path');
      rules.push(pathRule(entry.keys[0]!, entry.value));
    }
  }
  return rules;
}

function asObject(v: HclValue, what: string): HclObject {
  // HCL writes `path "x" { }` twice as a list of objects in JSON; take each object's items.
  if (Array.isArray(v) && v.every(isHclObject)) return { items: v.flatMap((o) => (o as HclObject).items) };
  if (!isHclObject(v)) return fail(`${what} must be an object`);
  return v;
}

function pathRule(rawPattern: string, value: HclValue): PathRule {
  const pattern = checkPattern(rawPattern);
  const rule: PathRule = { pattern, capabilities: new Set(), required: [] };
  for (const item of asObject(value, `path "${pattern}"`).items) {
    const key = item.keys.join(' ');
    if (UNSUPPORTED_RULE_KEYS.has(key))
      fail(`path "${pattern}": "${key}" is not supported by this server, so it is refused rather than ignored`);
    if (!RULE_KEYS.has(key) || item.keys.length !== 1) fail(`path "${pattern}": unknown key "${key}"`);
    readRuleKey(rule, key, item);
  }
  if (rule.capabilities.has('deny')) return { pattern, capabilities: new Set(['deny']), required: [] };
  return rule;
}

function readRuleKey(rule: PathRule, key: string, item: HclItem): void {
  const where = `path "${rule.pattern}": "${key}"`;
  switch (key) {
    case 'capabilities':
      for (const c of stringList(item.value, where)) {
        if (!(CAPABILITIES as readonly string[]).includes(c)) fail(`${where}: unknown capability ${JSON.stringify(c)}`);
        rule.capabilities.add(c as Capability);
      }
      break;
    case 'policy': {
      const word = typeof item.value === 'string' ? LEGACY[item.value] : undefined;
      if (!word) fail(`${where}: must be one of deny, read, write, sudo`);
      for (const c of word!) rule.capabilities.add(c);
      break;
    }
    case 'required_parameters':
      rule.required.push(...stringList(item.value, where).map((s) => s.toLowerCase()));
      break;
    default: {
      const map: ParamMap = new Map();
      for (const entry of asObject(item.value, where).items) {
        if (entry.keys.length !== 1) fail(`${where}: a parameter entry takes one name`);
        const v = entry.value;
        if (isHclObject(v)) fail(`${where}: the values of "${entry.keys[0]}" must be a list`);
        const values = Array.isArray(v) ? [...v] : [v];
        // A map's entries are written "key=value": an object value would never be compared, so it is refused.
        if (values.some((x) => isHclObject(x) || (Array.isArray(x) && x.some((y) => isHclObject(y)))))
          fail(`${where}: the values of "${entry.keys[0]}" must be strings, numbers or booleans (a map entry as "key=value")`);
        map.set(entry.keys[0]!.toLowerCase(), values);
      }
      if (key === 'allowed_parameters') rule.allowed = map;
      else rule.denied = map;
    }
  }
}

function stringList(v: HclValue, where: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((x) => typeof x === 'string')) fail(`${where} must be a list of strings`);
  return list as string[];
}

function checkPattern(raw: string): string {
  const pattern = raw.replace(/^\/+/, '');
  if (pattern.length > 512) fail('a path pattern is longer than 512 characters');
  if (pattern.includes('+*')) fail(`path "${pattern}": "+*" is not allowed`);
  const star = pattern.indexOf('*');
  if (star !== -1 && star !== pattern.length - 1) fail(`path "${pattern}": "*" is only allowed at the end`);
  return pattern;
}
