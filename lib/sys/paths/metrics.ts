/**
 * sys/metrics, as the reference server serves it: this process's metrics (metrics/registry.ts)
 * in its JSON shape by default, or `?format=prometheus` in the Prometheus text exposition format.
 * An ordinary authenticated path: a token with read on sys/metrics (a scraper's), 403 without.
 */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { registry } from '../../metrics/registry';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export const metricsPaths = [
  definePath({
    pattern: 'metrics',
    fields: {
      format: f.string({
        enum: ['', 'json', 'prometheus'],
        description: 'The format of the answer: JSON (the default) or `prometheus` (the text exposition format).',
      }),
    },
    help: "This process's metrics: JSON by default, `format=prometheus` for the Prometheus text format.",
    answers: ['application/json', PROMETHEUS_CONTENT_TYPE],
    operations: {
      read: async (req) =>
        req.data.format === 'prometheus'
          ? { raw: { body: registry.prometheusText(), contentType: PROMETHEUS_CONTENT_TYPE } }
          : { raw: { body: JSON.stringify(registry.json()), contentType: 'application/json' } },
    },
  }),
];
