/** lib/http/front-door.ts: pathTemplate, a declared path as the log line and the OpenAPI document show it. */
import { describe, expect, it } from 'vitest';
import { pathTemplate } from '../../lib/http/front-door';

describe('pathTemplate', () => {
  it.each([
    ['pki', 'roles/:name', 'pki/roles/{name}'],
    ['kv', '*key', 'kv/{key}'],
    ['sys', 'audit-hash/*path', 'sys/audit-hash/{path}'],
    ['pki', 'issuer/:issuer_ref/crl/delta', 'pki/issuer/{issuer_ref}/crl/delta'],
    ['auth/token', 'lookup-self', 'auth/token/lookup-self'],
    ['sys', '', 'sys'],
  ])('%s + %s is %s', (prefix, pattern, template) => {
    expect(pathTemplate(prefix, pattern)).toBe(template);
  });
});
