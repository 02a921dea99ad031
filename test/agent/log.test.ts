/** The agent's log lines: JSON, one per action, never a secret it has held. */
import { describe, expect, it } from 'vitest';
import { AgentLog, errorText } from '../../lib/agent/log';

function sink() {
  const lines: string[] = [];
  return { lines, out: { write: (s: string) => lines.push(s) } };
}

describe('AgentLog', () => {
  it('writes one JSON line per call with its time and event', () => {
    const s = sink();
    new AgentLog(s.out, () => 0).line('renewed', { serial: '01:02' });
    expect(s.lines).toEqual(['{"time":"1970-01-01T00:00:00.000Z","event":"renewed","serial":"01:02"}\n']);
  });

  it('replaces every secret it was told of wherever it appears, JSON-escaped ones included', () => {
    const s = sink();
    const log = new AgentLog(s.out);
    const key = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIabc\n-----END EC PRIVATE KEY-----';
    log.secret('hvs.s3cr3t-token-value');
    log.secret('5e6c1d3a-secret-id');
    log.secret(key);
    log.line('backoff', { error: 'token hvs.s3cr3t-token-value refused for 5e6c1d3a-secret-id', detail: key });
    const text = s.lines.join('');
    expect(text).not.toContain('s3cr3t');
    expect(text).not.toContain('5e6c1d3a');
    expect(text).not.toContain('MHcCAQEEIabc');
    expect(JSON.parse(text)).toMatchObject({ error: 'token [redacted] refused for [redacted]', detail: '[redacted]' });
  });

  it('ignores short values (they would mask ordinary words)', () => {
    const s = sink();
    const log = new AgentLog(s.out);
    log.secret('pki');
    log.line('renewed', { mount: 'pki' });
    expect(s.lines[0]).toContain('"mount":"pki"');
  });
});

describe('errorText', () => {
  it('one line, with the system code', () => {
    const e = Object.assign(new Error('connect failed\n    at x'), { code: 'ECONNREFUSED' });
    expect(errorText(e)).toBe('connect failed (ECONNREFUSED)');
  });
});
