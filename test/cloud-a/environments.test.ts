/** The cloud-A environments (lib/cloud-a/environments.ts): endpoints by name, any case, the public cloud by default. */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { cloudOf, ENVIRONMENT_NAMES } from '../../lib/cloud-a/environments';

describe('cloudOf', () => {
  it('knows every listed environment, in any case, and "" as the public cloud', () => {
    for (const name of ENVIRONMENT_NAMES) {
      const e = cloudOf(name);
      expect(cloudOf(name.toUpperCase())).toBe(e);
      for (const url of Object.values(e)) expect(url).toMatch(/^https:\/\//);
    }
    expect(cloudOf('')).toBe(cloudOf('AzurePublicCloud'));
    expect(new Set(ENVIRONMENT_NAMES.map((n) => cloudOf(n).graph)).size).toBe(ENVIRONMENT_NAMES.length);
  });
  it('refuses an unknown name with a 400 listing the known ones', () => {
    expect(() => cloudOf('Moon')).toThrow(InvalidInput);
    expect(() => cloudOf('Moon')).toThrow(`unknown environment "Moon": expected one of ${ENVIRONMENT_NAMES.join(', ')}`);
  });
});
