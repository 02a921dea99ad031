/** revoke, crl/rotate, crl/rotate-delta, config/crl, config/urls, tidy, tidy-status, config/auto-tidy. */
import { NotFoundError } from '../../domain-errors';
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { rebuildAllCrls, rebuildAllDeltas } from '../crl';
import { logError } from '../../log';
import { PkiRepository } from '../repository';
import { revokeSerial } from '../revoke';
import { parseSerial } from '../serial';
import { ACME_ACCOUNT_SAFETY_BUFFER, claimTidy, ISSUER_SAFETY_BUFFER, runTidy, tidyStatus, type TidyOptions } from '../tidy';
import { checkCrlConfig, type CrlConfig } from '../config';
import { checkUrls } from '../urls';
import { revocationTime } from './wire';

const tidyFields = {
  tidy_cert_store: f.bool({ default: false }),
  tidy_revoked_certs: f.bool({ default: false }),
  safety_buffer: f.duration({ default: 72 * 3600 }),
  tidy_acme: f.bool({ default: false }),
  acme_account_safety_buffer: f.duration({ default: ACME_ACCOUNT_SAFETY_BUFFER }),
  tidy_expired_issuers: f.bool({ default: false }),
  issuer_safety_buffer: f.duration({ default: ISSUER_SAFETY_BUFFER }),
};

/** The tidy settings on the wire: tidy and config/auto-tidy take them, tidy-status and config/auto-tidy show them. */
type TidyWire = {
  tidy_cert_store: boolean;
  tidy_revoked_certs: boolean;
  safety_buffer: number;
  tidy_acme: boolean;
  acme_account_safety_buffer: number;
  tidy_expired_issuers: boolean;
  issuer_safety_buffer: number;
};

/** The tidy a request asks for; an issuer_safety_buffer under a second is refused, as the reference refuses it. */
function tidyOptionsOf(d: TidyWire): Required<TidyOptions> {
  if (d.issuer_safety_buffer < 1) throw new BadRequest('issuer_safety_buffer must be greater than zero');
  return {
    tidyCertStore: d.tidy_cert_store,
    tidyRevokedCerts: d.tidy_revoked_certs,
    safetyBuffer: d.safety_buffer,
    tidyAcme: d.tidy_acme,
    acmeAccountSafetyBuffer: d.acme_account_safety_buffer,
    tidyExpiredIssuers: d.tidy_expired_issuers,
    issuerSafetyBuffer: d.issuer_safety_buffer,
  };
}

const tidyWire = (o: Required<TidyOptions>): TidyWire => ({
  tidy_cert_store: o.tidyCertStore,
  tidy_revoked_certs: o.tidyRevokedCerts,
  safety_buffer: o.safetyBuffer,
  tidy_acme: o.tidyAcme,
  acme_account_safety_buffer: o.acmeAccountSafetyBuffer,
  tidy_expired_issuers: o.tidyExpiredIssuers,
  issuer_safety_buffer: o.issuerSafetyBuffer,
});

/** A config/crl duration as the reference shows its defaults: `72h`, `15m`, `90s`. */
const shortDuration = (s: number) => (s >= 3600 && s % 3600 === 0 ? `${s / 3600}h` : s >= 60 && s % 60 === 0 ? `${s / 60}m` : `${s}s`);

/** config/crl on the wire. */
const crlWire = (c: CrlConfig) => ({
  expiry: shortDuration(c.expiry),
  disable: c.disable,
  ocsp_disable: c.ocspDisable,
  ocsp_expiry: shortDuration(c.ocspExpiry),
  auto_rebuild: c.autoRebuild,
  auto_rebuild_grace_period: shortDuration(c.autoRebuildGracePeriod),
  enable_delta: c.enableDelta,
  delta_rebuild_interval: shortDuration(c.deltaRebuildInterval),
});

export const adminPaths = [
  definePath({
    pattern: 'revoke',
    fields: { serial_number: f.string({ required: true }) },
    help: 'Revoke a certificate by serial number.',
    operations: {
      write: async (req) => {
        // The reference answers an unknown serial with 400, not 404.
        const revokedAt = await revokeSerial(req.deps, req.part, parseSerial(req.data.serial_number)).catch((e: unknown) => {
          throw e instanceof NotFoundError ? new BadRequest(e.message) : e;
        });
        return { data: { ...revocationTime(revokedAt), state: 'revoked' } };
      },
    },
  }),
  definePath({
    pattern: 'crl/rotate',
    readActs: true,
    fields: {},
    help: 'Rebuild the CRL now.',
    operations: {
      read: async (req) => {
        await rebuildAllCrls(req.deps, req.part);
        return { data: { success: true } };
      },
    },
  }),
  definePath({
    pattern: 'crl/rotate-delta',
    readActs: true,
    fields: {},
    help: 'Rebuild the delta CRLs now (config/crl enable_delta).',
    operations: {
      read: async (req) => {
        if (await rebuildAllDeltas(req.deps, req.part)) return { data: { success: true } };
        // OpenBao's words for the same no-op.
        return { data: { success: true }, warnings: ['requested rebuild of delta CRL when delta CRL is not enabled; this is a no-op'] };
      },
    },
  }),
  definePath({
    pattern: 'config/crl',
    fields: {
      expiry: f.duration({ description: 'how long a complete CRL is valid (72h)' }),
      disable: f.bool({ description: 'publish empty CRLs' }),
      ocsp_disable: f.bool({ description: 'the OCSP responder answers unauthorized' }),
      ocsp_expiry: f.duration({ description: "an OCSP answer's validity (nextUpdate; 0: none; 1h)" }),
      auto_rebuild: f.bool({ description: 'rebuild complete CRLs by schedule instead of on each revocation' }),
      auto_rebuild_grace_period: f.duration({ description: "how long before a complete CRL's nextUpdate the schedule rebuilds it (12h)" }),
      enable_delta: f.bool({ description: 'delta CRLs beside the complete one (needs auto_rebuild)' }),
      delta_rebuild_interval: f.duration({ description: 'how often the schedule rebuilds delta CRLs (15m)' }),
    },
    help: 'The CRL and OCSP settings; a write changes only the fields it names, as in OpenBao.',
    operations: {
      read: async (req) => ({ data: crlWire(await new PkiRepository(req.deps, req.part).config('crl')) }),
      write: async (req) => {
        const repo = new PkiRepository(req.deps, req.part);
        const d = req.data;
        const c = await repo.config('crl');
        const next = checkCrlConfig({
          expiry: d.expiry ?? c.expiry,
          disable: d.disable ?? c.disable,
          ocspDisable: d.ocsp_disable ?? c.ocspDisable,
          ocspExpiry: d.ocsp_expiry ?? c.ocspExpiry,
          autoRebuild: d.auto_rebuild ?? c.autoRebuild,
          autoRebuildGracePeriod: d.auto_rebuild_grace_period ?? c.autoRebuildGracePeriod,
          enableDelta: d.enable_delta ?? c.enableDelta,
          deltaRebuildInterval: d.delta_rebuild_interval ?? c.deltaRebuildInterval,
        });
        await repo.writeConfig('crl', next);
        await rebuildAllCrls(req.deps, req.part).catch(() => undefined);
        return { data: crlWire(next) };
      },
    },
  }),
  definePath({
    pattern: 'config/urls',
    fields: {
      issuing_certificates: f.list({ default: [] }),
      crl_distribution_points: f.list({ default: [] }),
      ocsp_servers: f.list({ default: [] }),
      delta_crl_distribution_points: f.list({
        default: [],
        description: 'where delta CRLs are: the Freshest CRL extension of complete CRLs and certificates',
      }),
      enable_templating: f.bool({ default: false, description: 'fill {{issuer_id}} and {{cluster_path}} per issuer' }),
    },
    help: "URLs put into issued certificates, for every issuer without URLs of its own (untemplated: the default issuer's).",
    operations: {
      read: async (req) => {
        const u = await new PkiRepository(req.deps, req.part).config('urls');
        return {
          data: {
            issuing_certificates: u.issuingCertificates,
            crl_distribution_points: u.crlDistributionPoints,
            ocsp_servers: u.ocspServers,
            delta_crl_distribution_points: u.deltaCrlDistributionPoints ?? [],
            enable_templating: u.enableTemplating ?? false,
          },
        };
      },
      write: async (req) => {
        const t = req.data.enable_templating;
        await new PkiRepository(req.deps, req.part).writeConfig('urls', {
          issuingCertificates: checkUrls('issuing_certificates', req.data.issuing_certificates, t),
          crlDistributionPoints: checkUrls('crl_distribution_points', req.data.crl_distribution_points, t),
          ocspServers: checkUrls('ocsp_servers', req.data.ocsp_servers, t),
          deltaCrlDistributionPoints: checkUrls('delta_crl_distribution_points', req.data.delta_crl_distribution_points, t),
          enableTemplating: t,
        });
      },
    },
  }),
  definePath({
    pattern: 'tidy',
    fields: tidyFields,
    help: 'Start removing expired certificates and revocations (asynchronous).',
    operations: {
      write: async (req) => {
        const options = tidyOptionsOf(req.data);
        if (!(await claimTidy(req.deps, req.part, options))) return { status: 202, warnings: ['Tidy operation already in progress.'] };
        runTidy(req.deps, req.part).catch((e: unknown) => logError('pki-tidy-fault', { mount: req.mount.path }, e));
        return {
          status: 202,
          warnings: ['Tidy operation successfully started. Any information from the operation will be printed to the server log.'],
        };
      },
    },
  }),
  definePath({
    pattern: 'tidy-status',
    fields: {},
    help: 'The state of the current or last tidy.',
    operations: {
      read: async (req) => {
        const s = await tidyStatus(req.part);
        return {
          data: {
            ...tidyWire(s),
            state: s.state,
            error: s.error,
            time_started: s.timeStarted,
            time_finished: s.timeFinished,
            message: s.message,
            cert_store_deleted_count: s.certStoreDeletedCount,
            revoked_cert_deleted_count: s.revokedCertDeletedCount,
            acme_orders_deleted_count: s.acmeOrdersDeletedCount,
            acme_account_deleted_count: s.acmeAccountDeletedCount,
            total_issuers_deleted_count: s.issuersDeletedCount,
          },
        };
      },
    },
  }),
  definePath({
    pattern: 'config/auto-tidy',
    fields: { enabled: f.bool({ default: false }), interval_duration: f.duration({ default: 12 * 3600 }), ...tidyFields },
    help: 'Scheduled tidy settings.',
    operations: {
      read: async (req) => {
        const c = await new PkiRepository(req.deps, req.part).config('auto-tidy');
        return { data: { enabled: c.enabled, interval_duration: c.intervalDuration, ...tidyWire(c) } };
      },
      write: async (req) => {
        await new PkiRepository(req.deps, req.part).writeConfig('auto-tidy', {
          enabled: req.data.enabled,
          intervalDuration: Math.max(60, req.data.interval_duration),
          ...tidyOptionsOf(req.data),
        });
      },
    },
  }),
];
