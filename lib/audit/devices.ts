/**
 * Audit devices: where records go. Configured as code (AUDIT_DEVICES), never through the API.
 * - `stdout`: one JSON line per record on the function's standard output (CloudWatch Logs under
 *   Lambda), told apart from the operational log by its `type` (request/response) and the
 *   absence of `event`; Node writes stdout synchronously to files and pipes on Linux, so the
 *   line is out before the response leaves.
 * - `file`: appended to a file (the local service: DATA_DIR/audit.log, mode 0600) before the
 *   response leaves; a rotated or removed file is recreated, an unwritable one fails the request.
 */
import { closeSync, fstatSync, openSync, statSync, writeSync } from 'node:fs';
import type { AuditSettings } from '../config';

export interface AuditDevice {
  /** The device's path in sys/audit ("stdout/", "file/"). */
  path: string;
  type: 'stdout' | 'file';
  description: string;
  options: Record<string, string>;
  /** Writes whole lines, synchronously; throws when they could not be written. */
  write(lines: string): void;
}

export function stdoutDevice(options: { logRaw?: boolean } = {}): AuditDevice {
  return {
    path: 'stdout/',
    type: 'stdout',
    description: "JSON lines on the function's standard output",
    options: { log_raw: String(options.logRaw === true) },
    write(lines) {
      // Synchronous for files and pipes on Linux (Node's stdout), as the operational log line is.
      process.stdout.write(lines);
    },
  };
}

export function fileDevice(filePath: string, options: { logRaw?: boolean } = {}): AuditDevice {
  const appender = new Appender(filePath);
  return {
    path: 'file/',
    type: 'file',
    description: 'JSON lines appended to a local file',
    options: { file_path: filePath, log_raw: String(options.logRaw === true) },
    write: (lines) => appender.append(lines),
  };
}

/**
 * Appends synchronously (the line is in the file before the response leaves) to a file kept
 * open; before each write the path is checked against the open file (device and inode), so a
 * file rotated or removed is reopened (recreated) and a path that cannot be written (a
 * directory, no permission) fails the write. Synchronous calls: an asynchronous append costs
 * several times more CPU per record here (measured with bench/audit.ts).
 */
class Appender {
  private file?: { fd: number; dev: number; ino: number };

  constructor(private readonly path: string) {}

  append(text: string): void {
    try {
      writeAll(this.current(), text);
    } catch (e) {
      this.close();
      throw e;
    }
  }

  private current(): number {
    const now = statSync(this.path, { throwIfNoEntry: false });
    if (this.file && now && now.dev === this.file.dev && now.ino === this.file.ino) return this.file.fd;
    this.close();
    const fd = openSync(this.path, 'a', 0o600);
    const st = fstatSync(fd);
    this.file = { fd, dev: st.dev, ino: st.ino };
    return fd;
  }

  private close(): void {
    const f = this.file;
    this.file = undefined;
    if (f) {
      try {
        closeSync(f.fd);
      } catch {
        // already closed
      }
    }
  }
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off);
}

/** The devices the settings name. */
export function auditDevices(settings: AuditSettings): AuditDevice[] {
  const options = { logRaw: settings.logRaw };
  return settings.devices.map((d) => (d.type === 'stdout' ? stdoutDevice(options) : fileDevice(d.path, options)));
}
