/** A registered admin key: an unencrypted private key the SSH client (ssh2) can use. */
import ssh2 from 'ssh2';
import { InvalidInput } from '../domain-errors';

export function checkAdminKey(text: string): string {
  if (!text.trim()) throw new InvalidInput('missing key');
  const key = text.trim() + '\n';
  if (key.length > 32_768) throw new InvalidInput('key is too long');
  let parsed: ReturnType<typeof ssh2.utils.parseKey>;
  try {
    parsed = ssh2.utils.parseKey(key);
  } catch (e) {
    throw new InvalidInput('key is not a valid SSH private key', { cause: e });
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first || first instanceof Error || !first.isPrivateKey()) throw new InvalidInput('key is not a valid unencrypted SSH private key');
  return key;
}
