/**
 * sys/metrics, as OpenBao and Vault serve it: this process's metrics (metrics/registry.ts)
 * in its JSON shape by default, or in the Prometheus text exposition format when asked with
 * `?format=prometheus` or, without a format, by an Accept header that starts with the
 * OpenMetrics type or names `prometheus/telemetry` (what a Prometheus scraper sends). An
 * ordinary authenticated path: a token with read on sys/metrics (a scraper's), 403 without.
 */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { registry } from '../../metrics/registry';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The format OpenBao infers from Accept when no `format` is given. */
function formatFromAccept(headers: Headers): string {
  const accept = headers.get('accept') ?? '';
  return accept.startsWith('application/openmetrics-text') || accept.includes('prometheus/telemetry') ? 'prometheus' : '';
}

export const metricsPaths = [
  definePath({
    pattern: 'metrics',
    fields: {
      format: f.string({
        enum: ['', 'prometheus'],
        description: 'The format of the answer: JSON when empty (the default), `prometheus` for the text exposition format.',
      }),
    },
    help: "This process's metrics: JSON by default, `format=prometheus` for the Prometheus text format.",
    answers: ['application/json', PROMETHEUS_CONTENT_TYPE],
    operations: {
      read: async (req) =>
        (req.data.format || formatFromAccept(req.headers)) === 'prometheus'
          ? { raw: { body: registry.prometheusText(), contentType: PROMETHEUS_CONTENT_TYPE } }
          : { raw: { body: JSON.stringify(registry.json()), contentType: 'application/json' } },
    },
  }),
];
