/** Names of roles and keys, as the reference server accepts them in a path segment. */
import { InvalidInput } from '../domain-errors';
import { quoted } from '../quote';

const NAME = /^\w(?:[\w.-]{0,126}\w)?$/;

export function checkName(name: string, what: string): string {
  if (!NAME.test(name))
    throw new InvalidInput(`invalid ${what} name${quoted(name)}: use letters, digits, '_', '-' and '.', at most 128 characters`);
  return name;
}
