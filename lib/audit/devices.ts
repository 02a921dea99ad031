/**
 * Audit devices: where records go. Configured as code (AUDIT_DEVICES), never through the API.
 * - `stdout`: one JSON line per record on the function's standard output (CloudWatch Logs under
 *   Lambda), told apart from the operational log by its `type` (request/response) and the
 *   absence of `event`; Node writes stdout synchronously to files and pipes on Linux, so the
 *   line is out before the response leaves.
 * - `file`: appended to a file (the local service: DATA_DIR/audit.log, mode 0600), opened for
 *   each write so a rotated or removed file is recreated and an unwritable one fails the request.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { AuditSettings } from '../config';

export interface AuditDevice {
  /** The device's path in sys/audit ("stdout/", "file/"). */
  path: string;
  type: 'stdout' | 'file';
  description: string;
  options: Record<string, string>;
  /** Writes whole lines; throws when they could not be written. */
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
  return {
    path: 'file/',
    type: 'file',
    description: 'JSON lines appended to a local file',
    options: { file_path: filePath, log_raw: String(options.logRaw === true) },
    write(lines) {
      const fd = openSync(filePath, 'a', 0o600);
      try {
        writeAll(fd, lines);
      } finally {
        closeSync(fd);
      }
    },
  };
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
