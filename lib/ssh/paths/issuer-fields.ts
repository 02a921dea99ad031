/** The fields of a CA key pair submitted or generated (config/ca, issuers/import), and the key they give. */
import type { KeyObject } from 'node:crypto';
import { BadRequest } from '../../errors';
import { f, type FieldValues } from '../../http/fields';
import { generateSshKey, importCaKey } from '../ca-key';
import type { IssuerRecord } from '../issuer-store';

export const caKeyFields = {
  private_key: f.string({ default: '', description: 'CA private key (when not generating).' }),
  public_key: f.string({ default: '', description: 'CA public key (when not generating).' }),
  generate_signing_key: f.bool({ description: 'Generate the CA key pair (default true).' }),
  key_type: f.string({ default: 'ssh-rsa', description: 'ssh-rsa, ecdsa-sha2-nistp256/384/521, ssh-ed25519, or rsa, ec, ed25519.' }),
  key_bits: f.int({ default: 0, min: 0, description: 'RSA size (0: 4096) or EC curve (0: 256).' }),
};

/** The key pair a request gives or asks for; `generated` when the engine made it. */
export async function caKeyOf(d: FieldValues<typeof caKeyFields>): Promise<{ key: KeyObject; generated: boolean }> {
  const supplied = d.private_key !== '' || d.public_key !== '';
  if (supplied && d.generate_signing_key === true)
    throw new BadRequest('public_key and private_key must not be set when generate_signing_key is true');
  if (!supplied && d.generate_signing_key === false) throw new BadRequest('missing public_key and private_key');
  if (!supplied) return { key: await generateSshKey({ keyType: d.key_type, keyBits: d.key_bits }), generated: true };
  if (!d.private_key) throw new BadRequest('missing private_key');
  if (!d.public_key) throw new BadRequest('missing public_key');
  return { key: await importCaKey(d.private_key, d.public_key), generated: false };
}

/** An issuer as OpenBao answers it. */
export function issuerData(issuer: IssuerRecord): Record<string, string> {
  return { issuer_id: issuer.id, issuer_name: issuer.name, public_key: issuer.publicKey };
}
