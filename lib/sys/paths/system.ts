/** sys/health, sys/init, sys/mounts, sys/openapi (and its reference name sys/internal/specs/openapi). */
import type { RouteSet } from '../../http/path';
import { definePath } from '../../http/path';
import { openApiDocument } from '../../http/openapi';
import { BadRequest, PermissionDenied } from '../../errors';
import { isInitialized } from '../init';
import { VERSION } from '../version-history';
import { mountInfo } from './mounts';

export { VERSION };

const ALREADY_INITIALIZED = 'Vault is already initialized';
const INIT_CLOSED =
  'sys/init is closed over HTTP: initialize with `npm run admin -- init` (a Lambda invoke with IAM credentials); the local server initializes itself';

const json = (value: unknown, status = 200) => ({ raw: { body: JSON.stringify(value), contentType: 'application/json', status } });

export function systemPaths(allRoutes: () => Promise<RouteSet[]>, remotePaths?: () => Promise<Record<string, unknown>>) {
  return [
    healthPath(),
    initPath(),
    mountsPath(),
    ...['openapi', 'internal/specs/openapi'].map((pattern) => openApiPath(pattern, allRoutes, remotePaths)),
  ];
}

/** sys/health: unauthenticated; 200 when initialized, 501 when not, in the reference's shape. */
function healthPath() {
  return definePath({
    pattern: 'health',
    fields: {},
    help: 'Service health: 200 when initialized, 501 when not.',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const initialized = await isInitialized(req.deps);
        return json(
          {
            initialized,
            sealed: false,
            standby: false,
            performance_standby: false,
            server_time_utc: Math.floor(req.deps.now() / 1000),
            version: VERSION,
            cluster_name: 'latchkey',
          },
          initialized ? 200 : 501,
        );
      },
    },
  });
}

/** sys/init: the status may be read by anyone; initializing over HTTP is refused. */
function initPath() {
  return definePath({
    pattern: 'init',
    fields: {},
    help: 'Initialization status. Initializing is not done over HTTP: the deployer runs `npm run admin -- init` (IAM), the local server initializes itself.',
    unauthenticated: ['read', 'write'],
    operations: {
      read: async (req) => json({ initialized: await isInitialized(req.deps) }),
      // Never a root token for the first caller of a public route (contract section 9). Once
      // initialised, the reference's own answer, which existing clients match on (node-vault's
      // integration test takes 'Vault is already initialized' as success).
      write: async (req) => {
        if (await isInitialized(req.deps)) throw new BadRequest(ALREADY_INITIALIZED);
        throw new PermissionDenied(INIT_CLOSED);
      },
    },
  });
}

function mountsPath() {
  return definePath({
    pattern: 'mounts',
    fields: {},
    help: 'The mounted engines (also at the top level of the answer, as Vault answers).',
    operations: {
      read: async (req) => ({ data: Object.fromEntries(req.deps.mounts.map((m) => [`${m.path}/`, mountInfo(m)])), topLevelData: true }),
    },
  });
}

/** The OpenAPI document of this function's routes and, when given, the paths of the engines served elsewhere. */
function openApiPath(
  pattern: string,
  allRoutes: () => Promise<RouteSet[]>,
  remotePaths: (() => Promise<Record<string, unknown>>) | undefined,
) {
  return definePath({
    pattern,
    fields: {},
    help: "The OpenAPI document of every function (sys/internal/specs/openapi is Vault's name).",
    operations: {
      read: async () => {
        const doc = openApiDocument(await allRoutes(), VERSION);
        if (remotePaths) Object.assign(doc.paths as Record<string, unknown>, await remotePaths());
        return json(doc);
      },
    },
  });
}
