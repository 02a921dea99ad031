/**
 * sys/audit and sys/audit-hash in the reference server's shapes. Devices are configured as code
 * (AUDIT_DEVICES), so enabling or disabling one through the API is refused, never stored.
 */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { BadRequest, NotFound } from '../../errors';

const AS_CODE = 'audit devices are configured as code (AUDIT_DEVICES); they cannot be enabled or disabled through the API';

export const auditPaths = [
  definePath({
    pattern: 'audit',
    fields: {},
    help: 'List the enabled audit devices (sudo).',
    sudo: ['read'],
    operations: {
      read: async (req) => {
        const data: Record<string, unknown> = {};
        for (const d of req.deps.audit.devices) {
          data[d.path] = { type: d.type, description: d.description, options: d.options, local: false, path: d.path };
        }
        return { data, topLevelData: true };
      },
    },
  }),
  definePath({
    pattern: 'audit/*path',
    fields: { path: f.pathParam() },
    help: 'Enable or disable an audit device: refused, devices are configured as code.',
    sudo: ['write', 'delete'],
    operations: {
      write: async () => {
        throw new BadRequest(AS_CODE);
      },
      delete: async () => {
        throw new BadRequest(AS_CODE);
      },
    },
  }),
  definePath({
    pattern: 'audit-hash/*path',
    fields: { path: f.pathParam(), input: f.string({ required: true }) },
    help: "The HMAC a device would record for `input`, to find a token's or a value's activity in the log.",
    operations: {
      write: async (req) => {
        const device = req.deps.audit.device(req.data.path);
        if (!device) throw new NotFound(`unknown audit device "${req.data.path.slice(0, 100)}"`);
        return { data: { hash: await req.deps.audit.hasher.hash(req.data.input) } };
      },
    },
  }),
];
