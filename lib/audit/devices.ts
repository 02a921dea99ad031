/**
 * Audit devices: where records go. Configured as code (AUDIT_DEVICES), never through the API.
 * - `stdout`: one JSON line per record on the function's standard output (CloudWatch Logs under
 *   Lambda), told apart from the operational log by its `type` (request/response) and the
 *   absence of `event`; Node writes stdout synchronously to files and pipes on Linux.
 * - `file`: appended to a file (the local service: DATA_DIR/audit.log, mode 0600); a rotated or
 *   removed file is recreated, an unwritable one fails the request.
 *
 * Both group the lines of one event-loop turn (the records of the requests that arrived
 * together) into one write at the end of the turn (setImmediate): a record's promise settles
 * once the write that holds it has returned, so no request goes on (its handler, or its
 * response) before its line is written.
 */
import { closeSync, fstatSync, openSync, statSync, writeSync } from 'node:fs';
import type { AuditSettings } from '../config';

export interface AuditDevice {
  /** The device's path in sys/audit ("stdout/", "file/"). */
  path: string;
  type: 'stdout' | 'file';
  description: string;
  options: Record<string, string>;
  /** Writes whole lines; settles once they are written (in the file, out on stdout), rejects when they could not be. */
  write(lines: string): Promise<void>;
}

export function stdoutDevice(options: { logRaw?: boolean } = {}): AuditDevice {
  // Synchronous for files and pipes on Linux (Node's stdout), as the operational log line is.
  const group = new LineGroup((text) => process.stdout.write(text));
  return {
    path: 'stdout/',
    type: 'stdout',
    description: "JSON lines on the function's standard output",
    options: { log_raw: String(options.logRaw === true) },
    write: (lines) => group.add(lines),
  };
}

export function fileDevice(filePath: string, options: { logRaw?: boolean } = {}): AuditDevice {
  const appender = new Appender(filePath);
  const group = new LineGroup((text) => appender.append(text));
  return {
    path: 'file/',
    type: 'file',
    description: 'JSON lines appended to a local file',
    options: { file_path: filePath, log_raw: String(options.logRaw === true) },
    write: (lines) => group.add(lines),
  };
}

/**
 * The lines given during one event-loop turn, written together by one synchronous call when
 * the turn ends; every caller of the turn gets the same promise, settled with that call.
 */
export class LineGroup {
  private lines: string[] = [];
  private turn?: { written: Promise<void>; resolve: () => void; reject: (e: unknown) => void };

  constructor(private readonly writeAll: (text: string) => void) {}

  add(lines: string): Promise<void> {
    if (!this.turn) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const written = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      this.turn = { written, resolve, reject };
      setImmediate(() => this.flush());
    }
    this.lines.push(lines);
    return this.turn.written;
  }

  private flush(): void {
    const { resolve, reject } = this.turn!;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.turn = undefined;
    try {
      this.writeAll(text);
    } catch (e) {
      reject(e);
      return;
    }
    resolve();
  }
}

/**
 * Appends synchronously (in the file when the call returns) to a file kept open; before each
 * write the path is checked against the open file (device and inode), so a file rotated or
 * removed is reopened (recreated) and a path that cannot be written (a directory, no
 * permission) fails the write. Synchronous calls: an asynchronous append costs more CPU per
 * record (bench/audit.ts; figures in BENCHMARKS.md).
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

/** Writes `text` whole: the string as it is (no Buffer made), the rest of a short write from its bytes. */
function writeAll(fd: number, text: string): void {
  const written = writeSync(fd, text);
  if (written === Buffer.byteLength(text)) return;
  const bytes = Buffer.from(text);
  let off = written;
  while (off < bytes.length) off += writeSync(fd, bytes, off);
}

/** The devices the settings name. */
export function auditDevices(settings: AuditSettings): AuditDevice[] {
  const options = { logRaw: settings.logRaw };
  return settings.devices.map((d) => (d.type === 'stdout' ? stdoutDevice(options) : fileDevice(d.path, options)));
}
