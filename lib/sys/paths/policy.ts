/**
 * sys/policy and sys/policies/acl (one implementation, deps.policies). sys/policy* also answer
 * their data at the top level, as Vault does (capabilities: capabilities.ts).
 */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { Policies } from '../policies';

const documentFields = {
  name: f.pathParam({ foldCase: true, description: 'the policy name (case-insensitive: stored lower-cased)' }),
  policy: f.any({ description: 'the policy document: JSON or HCL text, or the document itself' }),
  rules: f.any({ aliasOf: 'policy', description: 'an alias of policy (older clients send it)' }),
};

type DocumentReq = Req<typeof documentFields>;

async function readPolicy(req: DocumentReq): Promise<{ name: string; policy: string }> {
  const name = Policies.lookupName(req.data.name);
  const policy = name === undefined ? undefined : await req.deps.policies.read(name);
  if (name === undefined || policy === undefined) throw new NotFound();
  return { name, policy };
}

async function writePolicy(req: DocumentReq): Promise<void> {
  const given = (v: unknown) => v !== undefined && v !== '';
  const document = given(req.data.policy) ? req.data.policy : req.data.rules;
  if (!given(document)) throw new BadRequest('missing required field "policy"');
  await req.deps.policies.write(req.data.name, document);
}

async function deletePolicy(req: DocumentReq): Promise<void> {
  await req.deps.policies.delete(req.data.name);
}

export const policyPaths = [
  definePath({
    pattern: 'policy',
    fields: {},
    help: 'List policy names.',
    readLists: true,
    operations: {
      read: async (req) => {
        const keys = await req.deps.policies.list();
        return { data: { keys, policies: keys }, topLevelData: true };
      },
      list: async (req) => ({ data: { keys: await req.deps.policies.list() }, topLevelData: true }),
    },
  }),
  definePath({
    pattern: 'policy/:name',
    fields: documentFields,
    help: 'Read, write or delete a policy (`rules` is taken as an alias of `policy`).',
    operations: {
      read: async (req) => {
        const { name, policy } = await readPolicy(req);
        return { data: { name, policy, rules: policy }, topLevelData: true };
      },
      write: writePolicy,
      delete: deletePolicy,
    },
  }),
  definePath({
    pattern: 'policies/acl',
    fields: {},
    help: 'List ACL policy names (the current policy API; the same policies as sys/policy).',
    operations: { list: async (req) => ({ data: { keys: await req.deps.policies.list() } }) },
  }),
  definePath({
    pattern: 'policies/acl/:name',
    fields: documentFields,
    help: 'Read, write or delete an ACL policy (the current policy API; the same policies as sys/policy).',
    operations: {
      read: async (req) => ({ data: await readPolicy(req) }),
      write: writePolicy,
      delete: deletePolicy,
    },
  }),
];
