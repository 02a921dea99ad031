/**
 * sys/seal-status, unauthenticated, in the reference server's shape (what its CLI's `status`
 * and hvac's `seal_status` read). Latchkey has no seal: it is always unsealed; the keys are
 * sealed with KMS (reported as the reference reports an auto-unseal) or the local key file.
 */
import { definePath } from '../../http/path';
import { isInitialized } from '../init';
import { VERSION } from './system';

export const sealStatusPaths = [
  definePath({
    pattern: 'seal-status',
    fields: {},
    help: 'Seal status: always unsealed (unauthenticated).',
    unauthenticated: ['read'],
    operations: {
      read: async (req) => {
        const kms = Boolean(req.deps.env.kmsKeyId);
        const body = {
          type: kms ? 'awskms' : 'shamir',
          initialized: await isInitialized(req.deps),
          sealed: false,
          t: 1,
          n: 1,
          progress: 0,
          nonce: '',
          version: VERSION,
          build_date: '',
          migration: false,
          cluster_name: 'latchkey',
          cluster_id: '',
          recovery_seal: kms,
          storage_type: 'dynamodb',
        };
        return { raw: { body: JSON.stringify(body), contentType: 'application/json' } };
      },
    },
  }),
];
