/** sys/policy: list, read, write, delete policies; sys/capabilities-self. */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { capabilitiesFor, type Capability } from '../policy-rules';

export const policyPaths = [
  definePath({
    pattern: 'policy',
    fields: {},
    help: 'List policy names.',
    operations: {
      read: async (req) => {
        const keys = await req.deps.policies.list();
        return { data: { keys, policies: keys } };
      },
      list: async (req) => ({ data: { keys: await req.deps.policies.list() } }),
    },
  }),
  definePath({
    pattern: 'policy/:name',
    fields: {
      name: f.pathParam({ description: 'the policy name' }),
      policy: f.any({ description: 'the policy document: a JSON string, or the document itself' }),
    },
    help: 'Read, write or delete a policy.',
    operations: {
      read: async (req) => {
        const name = req.data.name.toLowerCase();
        const policy = await req.deps.policies.read(name);
        if (policy === undefined) throw new NotFound();
        return { data: { name, policy, rules: policy } };
      },
      write: async (req) => {
        if (req.data.policy === undefined || req.data.policy === '') throw new BadRequest('missing required field "policy"');
        await req.deps.policies.write(req.data.name, req.data.policy);
      },
      delete: async (req) => {
        await req.deps.policies.delete(req.data.name);
      },
    },
  }),
  definePath({
    pattern: 'capabilities-self',
    fields: { path: f.list({ description: 'paths to check' }), paths: f.list({ description: 'paths to check' }) },
    help: "The caller's capabilities on paths.",
    operations: {
      write: async (req) => {
        const paths = [...(req.data.paths ?? []), ...(req.data.path ?? [])];
        if (!paths.length) throw new BadRequest('missing required field "paths"');
        const policies = req.principal!.policies;
        const rules = await req.deps.policies.rules(policies.includes('root') ? [] : policies);
        const data: Record<string, Capability[] | string[]> = {};
        for (const p of paths) {
          const caps = policies.includes('root') ? ['root'] : [...capabilitiesFor(rules, p.replace(/^\/+/, ''))].sort();
          data[p] = caps.length ? caps : ['deny'];
        }
        const first = data[paths[0]!];
        return { data: { ...data, capabilities: paths.length === 1 ? first : [...new Set(Object.values(data).flat())].sort() } };
      },
    },
  }),
];
