/** Captures what the service writes to stdout/stderr (its log lines) during a test. */
import { vi } from 'vitest';
import { setLogLevel } from '../../lib/log';

/** Starts capturing at level info; undo with `setLogLevel('silent')` and `vi.restoreAllMocks()`. */
export function captureLogs(): string[] {
  const lines: string[] = [];
  const grab = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(grab);
  vi.spyOn(process.stderr, 'write').mockImplementation(grab);
  setLogLevel('info');
  return lines;
}
