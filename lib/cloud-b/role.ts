/**
 * Cloud-B roles: remote policies ("name:<policy>,type:System|Custom"), inline policy documents
 * (each given a generated hash that names the policy made from it) or an assumable role ARN.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import type { Json } from '../store/store';
import { BLANK, parseJsonText } from '../cloud-common/json-text';

export type RemotePolicy = {
  name: string;
  type: string;
};

export type InlinePolicy = {
  hash: string;
  policyDocument: Record<string, Json>;
};

export type Role = {
  roleArn: string;
  remotePolicies: RemotePolicy[];
  inlinePolicies: InlinePolicy[];
  ttl: number;
  maxTtl: number;
};

const MAX_POLICIES = 20;
const MAX_DOCUMENT = 6144;
export const POLICY_TYPES = ['System', 'Custom'];

export function parseRemotePolicies(entries: string[]): RemotePolicy[] {
  if (entries.length > MAX_POLICIES) throw new InvalidInput(`remote_policies: at most ${MAX_POLICIES}`);
  return entries.map((entry) => {
    const p = { name: '', type: '' };
    // The list field splits on commas, so "name:x,type:y" may arrive as two entries: rejoined below.
    for (const pair of entry.split(',')) {
      const [k, v, extra] = pair.split(':');
      if (v === undefined || extra !== undefined)
        throw new InvalidInput(`remote_policies: unable to recognize pair in "${pair.slice(0, 100)}"`);
      if (k === 'name') p.name = v;
      else if (k === 'type') p.type = v;
      else throw new InvalidInput(`remote_policies: invalid key "${(k ?? '').slice(0, 40)}"`);
    }
    if (!p.name) throw new InvalidInput(`remote_policies: policy name is required in "${entry.slice(0, 100)}"`);
    if (!p.type) throw new InvalidInput(`remote_policies: policy type is required in "${entry.slice(0, 100)}"`);
    if (!/^[A-Za-z0-9-]{1,128}$/.test(p.name)) throw new InvalidInput(`remote_policies: invalid policy name "${p.name.slice(0, 100)}"`);
    if (!POLICY_TYPES.includes(p.type))
      throw new InvalidInput(`remote_policies: unknown policy type "${p.type.slice(0, 40)}": expected System or Custom`);
    return p;
  });
}

/** The list field splits "name:a,type:b" on its comma; put each name with its type again. */
export function regroupRemote(items: string[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (item.startsWith('type:') && last !== undefined && !last.includes('type:')) out[out.length - 1] = `${last},${item}`;
    else out.push(item);
  }
  return out;
}

export function parseInlinePolicies(raw: unknown): InlinePolicy[] {
  const v = parseJsonText(raw, 'inline_policies: not valid JSON', 'inline_policies');
  if (v === BLANK) return [];
  const docs: unknown[] = Array.isArray(v) ? v : [v];
  if (docs.length > MAX_POLICIES) throw new InvalidInput(`inline_policies: at most ${MAX_POLICIES} documents`);
  return docs.map((d, i) => {
    if (typeof d !== 'object' || d === null || Array.isArray(d))
      throw new InvalidInput(`inline_policies: document ${i} is not a JSON object`);
    if (JSON.stringify(d).length > MAX_DOCUMENT)
      throw new InvalidInput(`inline_policies: document ${i} is over ${MAX_DOCUMENT} characters`);
    return { hash: randomUUID().replace(/-/g, ''), policyDocument: d as Record<string, Json> };
  });
}

export function checkRole(r: Role): void {
  if (r.maxTtl > 0 && r.ttl > r.maxTtl) throw new InvalidInput('ttl exceeds max_ttl');
  if (r.roleArn) {
    if (!/^acs:ram::\d{1,32}:role\/[\w.@-]{1,64}$/i.test(r.roleArn))
      throw new InvalidInput('role_arn: expected acs:ram::<account id>:role/<role name>');
    if (r.remotePolicies.length) throw new InvalidInput('remote_policies must be blank when an arn is present');
    if (r.inlinePolicies.length) throw new InvalidInput('inline_policies must be blank when an arn is present');
  } else if (r.remotePolicies.length + r.inlinePolicies.length === 0) {
    throw new InvalidInput('must include an arn, or at least one of inline_policies or remote_policies');
  }
}
