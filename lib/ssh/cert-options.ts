/** Critical options and extensions of a certificate: requested ones against the role's lists, or its defaults. */
import { InvalidInput } from '../domain-errors';
import { validateCidrs } from '../net/cidr';
import type { Role } from './role';
import { plainOr } from '../quote';

const nonEmpty = (m: Record<string, string> | undefined): m is Record<string, string> => !!m && Object.keys(m).length > 0;

export function criticalOptions(role: Role, requested: Record<string, string> | undefined): Record<string, string> {
  const chosen = nonEmpty(requested) ? requested : role.defaultCriticalOptions;
  if (nonEmpty(requested) && role.allowedCriticalOptions.length > 0) {
    const refused = Object.keys(requested).filter((k) => !role.allowedCriticalOptions.includes(k));
    if (refused.length)
      throw new InvalidInput(
        `critical options not on allowed list: ${refused
          .sort()
          .map((k) => plainOr(k))
          .join(', ')}`,
      );
  }
  const source = chosen['source-address'];
  if (source !== undefined)
    validateCidrs(
      source.split(',').map((s) => s.trim()),
      'source-address',
    );
  return chosen;
}

export function extensions(role: Role, requested: Record<string, string> | undefined): Record<string, string> {
  if (!nonEmpty(requested)) return role.defaultExtensions;
  if (role.allowedExtensions.includes('*')) return requested;
  const refused = Object.keys(requested).filter((k) => !role.allowedExtensions.includes(k));
  if (refused.length)
    throw new InvalidInput(
      `extensions not on allowed list: ${refused
        .sort()
        .map((k) => plainOr(k))
        .join(', ')}`,
    );
  return requested;
}
