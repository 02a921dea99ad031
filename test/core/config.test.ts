import { describe, expect, it } from 'vitest';
import { parseAuditDevices, parseMounts, readEnvironment } from '../../lib/config';

describe('parseMounts', () => {
  it('reads the audit non-HMAC keys of a mount', () => {
    const [m] = parseMounts([
      { path: 'pki', type: 'pki', audit_non_hmac_request_keys: ['common_name'], audit_non_hmac_response_keys: ['serial_number'] },
    ]);
    expect(m).toMatchObject({ auditClearRequestKeys: ['common_name'], auditClearResponseKeys: ['serial_number'] });
  });

  it('refuses a setting it does not know, and a malformed key list (never stored and ignored)', () => {
    expect(() => parseMounts([{ path: 'pki', type: 'pki', seal_wrap: true } as never])).toThrow('mount pki: unknown settings seal_wrap');
    expect(() => parseMounts([{ path: 'pki', type: 'pki', audit_non_hmac_request_keys: 'common_name' } as never])).toThrow(
      /must be a list of key names/,
    );
  });
});

describe('parseAuditDevices', () => {
  it.each([
    ['stdout', [{ type: 'stdout' }]],
    ['file:/var/log/lk.log', [{ type: 'file', path: '/var/log/lk.log' }]],
    ['stdout, file:/a', [{ type: 'stdout' }, { type: 'file', path: '/a' }]],
    ['none', []],
    ['', []],
  ])('%j', (spec, devices) => {
    expect(parseAuditDevices(spec)).toEqual(devices);
  });

  it('refuses an unknown device', () => {
    expect(() => parseAuditDevices('syslog')).toThrow(/unknown device "syslog"/);
    expect(() => parseAuditDevices('file:')).toThrow(/unknown device/);
  });
});

describe('METRICS', () => {
  it('is on by default, off when asked, and refuses anything else', () => {
    expect(readEnvironment({}).metrics).toBe(true);
    expect(readEnvironment({ METRICS: 'on' }).metrics).toBe(true);
    expect(readEnvironment({ METRICS: 'off' }).metrics).toBe(false);
    expect(() => readEnvironment({ METRICS: 'false' })).toThrow(/METRICS must be on or off, not "false"/);
  });
});
