/** A registered admin key: an unencrypted private key the SSH client (ssh2) can use. */
import { InvalidInput } from '../domain-errors';
import { parseSshKey } from './ssh2-lazy';

export async function checkAdminKey(text: string): Promise<string> {
  if (!text.trim()) throw new InvalidInput('missing key');
  const key = text.trim() + '\n';
  if (key.length > 32_768) throw new InvalidInput('key is too long');
  let first: Awaited<ReturnType<typeof parseSshKey>>;
  try {
    first = await parseSshKey(key);
  } catch (e) {
    throw new InvalidInput('key is not a valid SSH private key', { cause: e });
  }
  if (!first || first instanceof Error || !first.isPrivateKey()) throw new InvalidInput('key is not a valid unencrypted SSH private key');
  return key;
}
