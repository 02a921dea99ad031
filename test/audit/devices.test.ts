/**
 * Audit devices: the file device appends whole lines (mode 0600), recreates a removed file,
 * and throws when it cannot write (a directory in its place); the stdout device writes to the
 * process's standard output; both write the lines of one event-loop turn together, each
 * record's promise settling once its line is written; AUDIT_DEVICES names them.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LineGroup, auditDevices, fileDevice, stdoutDevice } from '../../lib/audit/devices';
import { parseAuditDevices, readEnvironment } from '../../lib/config';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-audit-devices-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('file device', () => {
  it('appends lines to a file it creates with mode 0600', async () => {
    const path = join(dir, 'a.log');
    const d = fileDevice(path);
    await d.write('{"n":1}\n');
    await d.write('{"n":2}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(d).toMatchObject({ path: 'file/', type: 'file', options: { file_path: path, log_raw: 'false' } });
  });

  it('recreates a removed (rotated) file on the next write', async () => {
    const path = join(dir, 'rotated.log');
    const d = fileDevice(path);
    await d.write('one\n');
    rmSync(path);
    await d.write('two\n');
    expect(readFileSync(path, 'utf8')).toBe('two\n');
  });

  it('after a rotation (rename), writes to a new file at the path, not the renamed one', async () => {
    const path = join(dir, 'renamed.log');
    const d = fileDevice(path);
    await d.write('one\n');
    renameSync(path, `${path}.1`);
    await d.write('two\n');
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('one\n');
    expect(readFileSync(path, 'utf8')).toBe('two\n');
  });

  it('fails while a directory replaces its open file, and writes again once the file is back', async () => {
    const path = join(dir, 'replaced.log');
    const d = fileDevice(path);
    await d.write('one\n');
    rmSync(path);
    mkdirSync(path);
    await expect(Promise.resolve().then(() => d.write('two\n'))).rejects.toThrow(/EISDIR/);
    rmSync(path, { recursive: true });
    await d.write('three\n');
    expect(readFileSync(path, 'utf8')).toBe('three\n');
  });

  it('writes multi-byte text whole', async () => {
    const path = join(dir, 'utf8.log');
    const line = JSON.stringify({ s: 'é€😀'.repeat(20_000) }) + '\n';
    await fileDevice(path).write(line);
    expect(readFileSync(path, 'utf8')).toBe(line);
  });

  it('rejects when a directory stands where the file should be', async () => {
    const path = join(dir, 'blocked.log');
    mkdirSync(path);
    await expect(Promise.resolve().then(() => fileDevice(path).write('x\n'))).rejects.toThrow(/EISDIR/);
  });

  it('rejects when the directory does not exist', async () => {
    await expect(Promise.resolve().then(() => fileDevice(join(dir, 'missing', 'a.log')).write('x\n'))).rejects.toThrow(/ENOENT/);
  });
});

describe('lines of one event-loop turn', () => {
  it('go out in one write, in order, and each settles once that write has returned', async () => {
    const writes: string[] = [];
    const group = new LineGroup((text) => writes.push(text));
    const settled = ['a\n', 'b\n', 'c\n'].map((l) => group.add(l).then(() => writes.length));
    expect(await Promise.all(settled)).toEqual([1, 1, 1]);
    expect(writes).toEqual(['a\nb\nc\n']);
    await group.add('d\n');
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('all fail when their write fails, and the next turn writes again', async () => {
    let fail = true;
    const written: string[] = [];
    const group = new LineGroup((text) => {
      if (fail) throw new Error('EIO: the disk is gone');
      written.push(text);
    });
    const outcomes = await Promise.allSettled([group.add('a\n'), group.add('b\n')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await group.add('c\n');
    expect(written).toEqual(['c\n']);
  });

  it('in a file: the lines of concurrent records, each whole, each in the file once its promise settles', async () => {
    const path = join(dir, 'grouped.log');
    const d = fileDevice(path);
    const lines = Array.from({ length: 20 }, (_, i) => `{"n":${i}}\n`);
    await Promise.all(lines.map((l) => d.write(l).then(() => expect(readFileSync(path, 'utf8')).toContain(l))));
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });

  it('in a file: every record of the turn fails while a directory stands at the path', async () => {
    const path = join(dir, 'grouped-blocked.log');
    mkdirSync(path);
    const d = fileDevice(path);
    const outcomes = await Promise.allSettled([d.write('a\n'), d.write('b\n')]);
    expect(outcomes.map((o) => o.status === 'rejected' && String(o.reason))).toEqual([
      expect.stringMatching(/EISDIR/),
      expect.stringMatching(/EISDIR/),
    ]);
  });
});

describe('stdout device', () => {
  it("writes its lines to the process's standard output", () => {
    const script = `import { stdoutDevice } from './lib/audit/devices.ts'; stdoutDevice().write('{"type":"request"}\\n'); stdoutDevice().write('{"type":"response"}\\n');`;
    const out = execFileSync(join(import.meta.dirname, '../../node_modules/.bin/tsx'), ['--eval', script], {
      cwd: join(import.meta.dirname, '../..'),
      encoding: 'utf8',
    });
    expect(out).toBe('{"type":"request"}\n{"type":"response"}\n');
    expect(stdoutDevice({ logRaw: true })).toMatchObject({ path: 'stdout/', type: 'stdout', options: { log_raw: 'true' } });
  });
});

describe('AUDIT_DEVICES', () => {
  it('defaults to stdout, names files, and takes none for no device', () => {
    expect(readEnvironment({}).audit).toEqual({ devices: [{ type: 'stdout' }], logRaw: false });
    expect(readEnvironment({ AUDIT_DEVICES: 'none' }).audit.devices).toEqual([]);
    expect(readEnvironment({ AUDIT_DEVICES: 'stdout, file:/var/log/a.log', AUDIT_LOG_RAW: 'true' }).audit).toEqual({
      devices: [{ type: 'stdout' }, { type: 'file', path: '/var/log/a.log' }],
      logRaw: true,
    });
  });

  it('refuses an unknown device, naming it', () => {
    expect(() => parseAuditDevices('syslog')).toThrow(/AUDIT_DEVICES: unknown device "syslog"/);
    expect(() => parseAuditDevices('file:')).toThrow(/unknown device "file:"/);
  });

  it('builds the devices it names, log_raw on every one when set', () => {
    const devices = auditDevices({ devices: [{ type: 'stdout' }, { type: 'file', path: join(dir, 'b.log') }], logRaw: true });
    expect(devices.map((d) => [d.path, d.options.log_raw])).toEqual([
      ['stdout/', 'true'],
      ['file/', 'true'],
    ]);
  });
});
