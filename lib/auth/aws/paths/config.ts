/** auth/aws/config/client: written, read and deleted as the reference serves it. */
import { BadRequest, NotFound } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath } from '../../../http/path';
import { applyClientConfig, UNSUPPORTED_CONFIG_FIELDS } from '../client-config';
import { AwsAuthStore } from '../store';

const refused = Object.fromEntries(UNSUPPORTED_CONFIG_FIELDS.map((k) => [k, f.any({ description: 'not supported: refused when set' })]));

export const configPaths = [
  definePath({
    pattern: 'config/client',
    fields: {
      sts_endpoint: f.string({ description: 'the STS endpoint logins are sent to (default https://sts.amazonaws.com)' }),
      sts_region: f.string({ description: 'the region logins must be signed for (default us-east-1)' }),
      iam_server_id_header_value: f.string({ description: 'the X-Vault-AWS-IAM-Server-ID value logins must carry and sign' }),
      ...refused,
    },
    help: 'The STS endpoint and region iam logins are verified with, and the server-id header they must sign.',
    exists: async ({ part }) => (await new AwsAuthStore(part).config()) !== undefined,
    operations: {
      read: async (req) => {
        const c = await new AwsAuthStore(req.part).config();
        if (!c) throw new NotFound();
        return { data: { sts_endpoint: c.stsEndpoint, sts_region: c.stsRegion, iam_server_id_header_value: c.iamServerIdHeaderValue } };
      },
      write: async (req) => {
        const given = UNSUPPORTED_CONFIG_FIELDS.filter((k) => (req.data as Record<string, unknown>)[k] !== undefined);
        if (given.length)
          throw new BadRequest(
            `not supported, refused rather than stored and ignored: ${given.join(', ')} (this service makes no IAM or EC2 call of its own)`,
          );
        const store = new AwsAuthStore(req.part);
        const d = req.data;
        await store.putConfig(
          applyClientConfig(await store.config(), {
            stsEndpoint: d.sts_endpoint,
            stsRegion: d.sts_region,
            iamServerIdHeaderValue: d.iam_server_id_header_value,
          }),
        );
      },
      delete: async (req) => {
        await new AwsAuthStore(req.part).deleteConfig();
      },
    },
  }),
];
