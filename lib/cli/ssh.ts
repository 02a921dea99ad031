import { UsageError } from './args';
import type { Command } from './commands';

export const command: Command = {
  summary: '(not yet)',
  run() {
    return Promise.reject(new UsageError('not yet'));
  },
};
