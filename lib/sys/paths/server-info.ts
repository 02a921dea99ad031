/**
 * What the vault CLI and clients ask about the server: sys/leader (`vault status`), sys/key-status,
 * sys/version-history, sys/host-info. Ordinary authenticated paths (Vault serves sys/leader
 * without a token; Latchkey's unauthenticated paths are exactly sys/health and sys/seal-status,
 * so the default policy grants its read instead).
 */
import { HttpError } from '../../errors';
import { definePath } from '../../http/path';
import { initializedAt } from '../init';
import { recordVersion, VERSION, versionHistory } from '../version-history';

const json = (value: unknown) => ({ raw: { body: JSON.stringify(value), contentType: 'application/json' } });

/** Go's zero time, as Vault renders the `active_time` of a server without HA. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

const HOST_INFO_REFUSED =
  'sys/host-info is not served: Latchkey runs as AWS Lambda functions, many short-lived instances with no host of their own to describe; ' +
  "see the functions' CloudWatch metrics instead";

export const serverInfoPaths = [
  definePath({
    pattern: 'leader',
    fields: {},
    help: 'High-availability status: Latchkey is not clustered (every function instance serves alone over one table), so ha_enabled is false, as a single Vault server answers.',
    operations: {
      read: async () =>
        json({
          ha_enabled: false,
          is_self: false,
          active_time: ZERO_TIME,
          leader_address: '',
          leader_cluster_address: '',
          performance_standby: false,
          performance_standby_last_remote_wal: 0,
        }),
    },
  }),
  definePath({
    pattern: 'key-status',
    fields: {},
    help: 'The encryption key: term 1 (values are sealed under data keys of one KMS key or the local key file, never rotated through this API), installed when the deployment was initialised.',
    operations: {
      read: async (req) => ({ data: { term: 1, install_time: (await initializedAt(req.deps)) ?? '' }, topLevelData: true }),
    },
  }),
  definePath({
    pattern: 'version-history',
    fields: {},
    help: 'The Latchkey versions that have served this deployment, oldest first, each with the time it first did.',
    operations: {
      list: async (req) => {
        await recordVersion(req.deps, VERSION);
        const entries = await versionHistory(req.deps);
        const keyInfo = Object.fromEntries(
          entries.map((e, i) => [
            e.version,
            {
              timestamp_installed: e.installed.replace(/\.\d+Z$/, 'Z'),
              previous_version: i > 0 ? entries[i - 1]!.version : null,
              commit_date: null,
            },
          ]),
        );
        return { data: { keys: entries.map((e) => e.version), key_info: keyInfo } };
      },
    },
  }),
  definePath({
    pattern: 'host-info',
    fields: {},
    help: 'Not served on Lambda (400): there is no host to describe.',
    operations: {
      read: async (): Promise<never> => {
        throw new HttpError(400, [HOST_INFO_REFUSED]);
      },
    },
  }),
];
