/**
 * Every metric Latchkey records outside the edge's request metrics (lib/metrics/requests.ts),
 * in one place: its Prometheus name and labels, and its CloudWatch name, unit and dimensions
 * (published in EMF on Lambda, namespace `Latchkey`). Alarms and the dashboard in infra/ name
 * these CloudWatch names; test/deploy/observability.test.ts holds them to this list.
 *
 * Labels are bounded values only: a mount, an engine, a method, a result, an operation, a job; an
 * issuer's id and a role's name are Prometheus labels (bounded by the registry's series cap) and
 * never CloudWatch dimensions.
 */
import { registry, type Registry } from './registry';

const count = (name: string, dimensions: readonly string[] = []) => ({ name, unit: 'Count' as const, dimensions });
const seconds = (name: string, dimensions: readonly string[] = []) => ({ name, unit: 'Seconds' as const, dimensions });

/** Buckets for work measured in seconds that is usually fast (a CRL build, a store or KMS call). */
const FAST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function pkiMetrics(r: Registry) {
  return {
    issued: r.counter({
      name: 'latchkey_pki_certificates_issued_total',
      help: 'X.509 certificates issued or signed, by mount, issuer id and role (empty for CA certificates and sign-verbatim without a role).',
      labels: ['mount', 'issuer', 'role'],
      cloudwatch: count('CertificatesIssued', ['mount']),
    }),
    revoked: r.counter({
      name: 'latchkey_pki_certificates_revoked_total',
      help: 'X.509 certificates revoked, by mount.',
      labels: ['mount'],
      cloudwatch: count('CertificatesRevoked', ['mount']),
    }),
    crlBuilds: r.counter({
      name: 'latchkey_pki_crl_builds_total',
      help: 'CRLs built and stored, by mount and kind (complete or delta).',
      labels: ['mount', 'kind'],
      cloudwatch: count('CrlBuilds', ['mount']),
    }),
    crlBuildSeconds: r.histogram({
      name: 'latchkey_pki_crl_build_duration_seconds',
      help: 'Time to build and store a CRL, in seconds, by mount and kind.',
      labels: ['mount', 'kind'],
      buckets: FAST_BUCKETS,
      cloudwatch: seconds('CrlBuildDuration', ['mount']),
    }),
    crlOverdue: r.gauge({
      name: 'latchkey_pki_crls_overdue',
      help: "CRLs of a mount whose next update has passed without a rebuild, as last checked by the mount's CRL schedule.",
      labels: ['mount'],
      cloudwatch: count('CrlsOverdue', ['mount']),
    }),
    ocsp: r.counter({
      name: 'latchkey_pki_ocsp_responses_total',
      help: 'OCSP responses built, by mount and status (good, revoked, unknown, or the error status sent).',
      labels: ['mount', 'status'],
      cloudwatch: count('OcspResponses', ['mount']),
    }),
    ocspSeconds: r.histogram({
      name: 'latchkey_pki_ocsp_build_duration_seconds',
      help: 'Time to build and sign an OCSP response, in seconds, by mount.',
      labels: ['mount'],
      buckets: FAST_BUCKETS,
      cloudwatch: seconds('OcspBuildDuration', ['mount']),
    }),
  };
}

function sshMetrics(r: Registry) {
  return {
    signed: r.counter({
      name: 'latchkey_ssh_certificates_signed_total',
      help: 'SSH certificates signed, by mount and certificate type (user or host).',
      labels: ['mount', 'cert_type'],
      cloudwatch: count('SshCertificatesSigned', ['mount']),
    }),
    revoked: r.counter({
      name: 'latchkey_ssh_certificates_revoked_total',
      help: 'SSH certificates revoked (put in the KRL), by mount.',
      labels: ['mount'],
      cloudwatch: count('SshCertificatesRevoked', ['mount']),
    }),
  };
}

function leaseMetrics(r: Registry) {
  const lease = (what: string, cw: string, help: string) =>
    r.counter({ name: `latchkey_leases_${what}_total`, help, labels: ['engine'], cloudwatch: count(cw, ['engine']) });
  return {
    created: lease('created', 'LeasesCreated', 'Leases created, by engine type.'),
    renewed: lease('renewed', 'LeasesRenewed', 'Leases renewed, by engine type.'),
    revoked: lease('revoked', 'LeasesRevoked', 'Leases revoked (by a caller, the sweeper or expiry), by engine type.'),
    revokeFailed: lease(
      'revocation_failures',
      'LeaseRevocationFailures',
      'Lease revocations that failed (the engine could not undo the secret; retried by the sweeper), by engine type.',
    ),
  };
}

function authMetrics(r: Registry) {
  return {
    logins: r.counter({
      name: 'latchkey_logins_total',
      help: 'Logins, by method (approle, aws, jwt, …) and result (success or failure).',
      labels: ['method', 'result'],
      cloudwatch: count('Logins', ['method', 'result']),
    }),
    tokensCreated: r.counter({
      name: 'latchkey_tokens_created_total',
      help: 'Tokens created (by logins, token/create, roles, wrapping), by kind (service or wrapping).',
      labels: ['kind'],
      cloudwatch: count('TokensCreated'),
    }),
    tokensRevoked: r.counter({
      name: 'latchkey_tokens_revoked_total',
      help: 'Tokens revoked (each token of a revoked tree counts).',
      cloudwatch: count('TokensRevoked'),
    }),
  };
}

function auditMetrics(r: Registry) {
  return {
    written: r.counter({
      name: 'latchkey_audit_records_written_total',
      help: 'Audit records written, by kind (request or response).',
      labels: ['kind'],
      cloudwatch: count('AuditRecordsWritten'),
    }),
    failed: r.counter({
      name: 'latchkey_audit_write_failures_total',
      help: 'Audit records that no device took: the request they belong to was refused (fail closed).',
      labels: ['kind'],
      cloudwatch: count('AuditWriteFailures'),
    }),
  };
}

function jobMetrics(r: Registry) {
  return {
    runs: r.counter({
      name: 'latchkey_job_runs_total',
      help: 'Scheduled runs of the jobs (lease-sweep, pki-crl, pki-tidy, ssh-tidy, cloud-a-rotate), by job.',
      labels: ['job'],
      cloudwatch: count('JobRuns', ['job']),
    }),
    failures: r.counter({
      name: 'latchkey_job_failures_total',
      help: 'Job runs that failed (threw before finishing), by job.',
      labels: ['job'],
      cloudwatch: count('JobFailures', ['job']),
    }),
    seconds: r.histogram({
      name: 'latchkey_job_duration_seconds',
      help: 'Time a job run took, in seconds, by job.',
      labels: ['job'],
      cloudwatch: seconds('JobDuration', ['job']),
    }),
    items: r.counter({
      name: 'latchkey_job_items_total',
      help: 'Items a job acted on (leases revoked, certificates or issuers tidied, CRLs rebuilt), by job.',
      labels: ['job'],
      cloudwatch: count('JobItems', ['job']),
    }),
  };
}

function platformMetrics(r: Registry) {
  return {
    storeCalls: r.counter({
      name: 'latchkey_store_calls_total',
      help: 'Storage calls, by operation (get, put, list, …) and result (ok or error).',
      labels: ['operation', 'result'],
      cloudwatch: count('StoreCalls', ['operation']),
    }),
    storeSeconds: r.histogram({
      name: 'latchkey_store_call_duration_seconds',
      help: 'Time of a storage call, in seconds, by operation.',
      labels: ['operation'],
      buckets: FAST_BUCKETS,
      cloudwatch: seconds('StoreCallDuration', ['operation']),
    }),
    kmsCalls: r.counter({
      name: 'latchkey_kms_calls_total',
      help: 'AWS KMS calls, by operation (GenerateDataKey, Decrypt, Sign, GetPublicKey) and result (ok or error).',
      labels: ['operation', 'result'],
      cloudwatch: count('KmsCalls', ['operation']),
    }),
    kmsSeconds: r.histogram({
      name: 'latchkey_kms_call_duration_seconds',
      help: 'Time of an AWS KMS call, in seconds, by operation.',
      labels: ['operation'],
      buckets: FAST_BUCKETS,
      cloudwatch: seconds('KmsCallDuration', ['operation']),
    }),
    coldStarts: r.counter({
      name: 'latchkey_cold_starts_total',
      help: 'Lambda instances started (1 per instance, on its first invocation); 0 when not on Lambda.',
      cloudwatch: count('ColdStart'),
    }),
  };
}

export function domainMetrics(r: Registry) {
  return {
    pki: pkiMetrics(r),
    ssh: sshMetrics(r),
    leases: leaseMetrics(r),
    auth: authMetrics(r),
    audit: auditMetrics(r),
    jobs: jobMetrics(r),
    platform: platformMetrics(r),
  };
}

export type DomainMetrics = ReturnType<typeof domainMetrics>;

/** The mount of a partition (`pki/<mount>` → `<mount>`; `auth/<path>` and `sys` as they are), a bounded label. */
export function mountOf(partitionName: string): string {
  if (partitionName.startsWith('auth/') || !partitionName.includes('/')) return partitionName;
  return partitionName.slice(partitionName.indexOf('/') + 1);
}

/** This process's domain metrics, in its one registry. */
export const metrics: DomainMetrics = domainMetrics(registry);

/** Runs a job, counting its run, its failure (it threw), its duration and the items `itemsOf` finds in its result. */
export async function timedJob<T>(
  job: string,
  run: () => Promise<T>,
  itemsOf: (out: T) => number = (out) => (typeof out === 'number' ? out : 0),
  m: DomainMetrics = metrics,
): Promise<T> {
  const started = performance.now();
  m.jobs.runs.inc({ job });
  try {
    const out = await run();
    const items = itemsOf(out);
    if (items > 0) m.jobs.items.inc({ job }, items);
    return out;
  } catch (e) {
    m.jobs.failures.inc({ job });
    throw e;
  } finally {
    m.jobs.seconds.observe({ job }, (performance.now() - started) / 1000);
  }
}
