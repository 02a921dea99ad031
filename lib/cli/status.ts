/**
 * `latchkey status`: sys/seal-status and sys/leader as the vault CLI prints them. Exit 0 when
 * unsealed, 2 when sealed (as vault's, for scripts that test it), 1 when unreachable.
 */
import { str } from './args';
import { formatOf, kvTable, printValue } from './format';
import { defineCommand } from './kit';

export const command = defineCommand(
  {
    summary: 'Print the seal and leader status',
    help: 'Usage: latchkey status [-format=table|json|yaml]\n\nPrints sys/seal-status and sys/leader. Exit 0 unsealed, 2 sealed, 1 unreachable.',
    flags: { format: 'string' },
    args: [0, 0],
  },
  async (c) => {
    const { client } = c.ctx();
    const seal = (await client.request('GET', 'sys/seal-status')).json ?? {};
    const leader = seal.sealed ? {} : ((await client.request('GET', 'sys/leader', { anyStatus: true })).json ?? {});
    const format = formatOf(str(c.p, 'format'), c.io.env);
    if (format === 'json' || format === 'yaml')
      printValue(c.io, { ...seal, ...(leader.ha_enabled !== undefined ? { ha_enabled: leader.ha_enabled } : {}) }, format);
    else {
      const rows: [string, unknown][] = [
        ['Seal Type', seal.type],
        ['Initialized', seal.initialized],
        ['Sealed', seal.sealed],
        ['Total Shares', seal.n],
        ['Threshold', seal.t],
        ['Version', seal.version],
        ['Build Date', seal.build_date || 'n/a'],
        ['Storage Type', seal.storage_type],
        ['Cluster Name', seal.cluster_name],
        ['Cluster ID', seal.cluster_id || 'n/a'],
        ['HA Enabled', leader.ha_enabled ?? false],
      ];
      c.io.stdout.write(kvTable(rows));
    }
    return seal.sealed ? 2 : 0;
  },
);
