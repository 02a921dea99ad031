/** `rotate-root`: a new root client secret, known only to the engine. */
import { definePath } from '../../http/path';
import type { EnvReader } from '../../cloud-common/env-settings';
import { cloudAStore } from '../cloud-a-store';
import { rotateRoot } from '../rotate';

export const rotatePaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'rotate-root',
    fields: {},
    help: 'Rotate the root client secret; the old passwords are removed once the new one works.',
    operations: {
      write: async (req) => {
        const r = await rotateRoot(req.deps, cloudAStore(req.part), readEnv);
        return {
          data: { secret_id: r.keyId, end_date: r.endDate, display_name: r.displayName },
          ...(r.finalised
            ? {}
            : {
                warnings: [
                  'the new client secret is not accepted by the directory yet; the old one stays in use and is removed by the scheduled finalisation',
                ],
              }),
        };
      },
    },
  }),
];
