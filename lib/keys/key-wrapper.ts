/**
 * What envelope encryption needs from a key-encryption key: fresh data keys, wrapped, and
 * unwrapping them again. Implemented by the local key file and by AWS KMS.
 * `context` is bound to the wrapped key (KMS EncryptionContext / GCM additional data):
 * a wrapped key only unwraps with the same context.
 */
export interface DataKey {
  plaintext: Buffer;
  wrapped: Buffer;
}

export interface KeyWrapper {
  /** A short name of the wrapping key's kind, recorded with each sealed value ("local" or "kms"). */
  readonly kind: string;
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  unwrap(wrapped: Buffer, context: Record<string, string>): Promise<Buffer>;
}
