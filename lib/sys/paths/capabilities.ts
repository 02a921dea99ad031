/**
 * sys/capabilities (another token's, by the token), sys/capabilities-accessor (by its accessor)
 * and sys/capabilities-self (the caller's): a token's capabilities on paths, in Vault's shape
 * (each path's list, plus `capabilities` when one path is asked; the data also at the top level,
 * as Vault answers it). Each is an ordinary authenticated path; the default policy grants -self.
 */
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { capabilitiesAnswer, capabilitiesOf, policiesOfAccessor, policiesOfToken } from '../capabilities';

const pathFields = {
  paths: f.list({ description: 'paths on which capabilities are being queried' }),
  path: f.list({ description: 'use paths instead (the older name; read only when paths is not given)' }),
};

type PathsReq = Req<typeof pathFields>;

/** `paths`, or the older `path` when `paths` is absent, as Vault reads them. */
const pathsOf = (req: PathsReq): string[] => (req.data.paths?.length ? req.data.paths : (req.data.path ?? []));

async function answer(req: PathsReq, policies: readonly string[]) {
  const paths = pathsOf(req);
  return { data: capabilitiesAnswer(await capabilitiesOf(req.deps, policies, paths), paths), topLevelData: true };
}

export const capabilityPaths = [
  definePath({
    pattern: 'capabilities-self',
    fields: {
      ...pathFields,
      token: f.string({ description: "not read: the caller's own token is the one asked about (the vault CLI sends it)" }),
    },
    help: "The calling token's capabilities on paths.",
    operations: { write: async (req) => answer(req, req.principal!.policies) },
  }),
  definePath({
    pattern: 'capabilities',
    fields: { ...pathFields, token: f.string({ description: 'the token whose capabilities are queried' }) },
    help: "A token's capabilities on paths (400 invalid token for an unknown or expired one).",
    operations: { write: async (req) => answer(req, await policiesOfToken(req.deps, req.data.token ?? '')) },
  }),
  definePath({
    pattern: 'capabilities-accessor',
    fields: { ...pathFields, accessor: f.string({ description: 'the accessor of the token whose capabilities are queried' }) },
    help: 'The capabilities on paths of the token with an accessor (400 invalid accessor for an unknown one).',
    operations: { write: async (req) => answer(req, await policiesOfAccessor(req.deps, req.data.accessor ?? '')) },
  }),
];
