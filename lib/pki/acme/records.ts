/** The ACME objects as the mount's partition keeps them (types, not interfaces: they are the JSON stored). */
import type { SealedValue } from '../../keys/sealed';
import type { AccountKey } from './jws';

/** An ACME error as stored on a challenge or an order. */
export type StoredProblem = { type: string; detail: string; status: number };

export type Identifier = { type: 'dns' | 'ip'; value: string };

export type AccountRecord = {
  id: string;
  key: AccountKey;
  thumbprint: string;
  status: 'valid' | 'deactivated' | 'revoked';
  contact: string[];
  /** The directory (`''` or `roles/<role>/`) the account was created through; it is used only there. */
  directory: string;
  /** The external account binding it was created with, if any. */
  eab?: string;
  createdAt: number;
};

export type ChallengeType = 'http-01' | 'dns-01' | 'tls-alpn-01';

export type ChallengeRecord = {
  type: ChallengeType;
  token: string;
  status: 'pending' | 'processing' | 'valid' | 'invalid';
  /** ms: when validation started (a processing challenge left by a lost instance is retried after a while). */
  started?: number;
  validated?: number;
  error?: StoredProblem;
};

export type AuthzRecord = {
  id: string;
  account: string;
  order: string;
  /** The identifier without a wildcard's `*.`. */
  identifier: Identifier;
  wildcard: boolean;
  status: 'pending' | 'valid' | 'invalid' | 'deactivated';
  expires: number;
  challenges: ChallengeRecord[];
};

export type OrderRecord = {
  id: string;
  account: string;
  directory: string;
  status: 'pending' | 'ready' | 'processing' | 'valid' | 'invalid';
  identifiers: Identifier[];
  authorizations: string[];
  expires: number;
  /** ms: when finalization started (an order left `processing` by an instance that ended is ready again after a while). */
  started?: number;
  /** Requested notAfter (RFC 3339), if any. */
  notAfter?: string;
  /** The issued certificate's serial (hex key) and its chain, PEM, once valid. */
  serial?: string;
  chain?: string;
  certNotAfter?: number;
  error?: StoredProblem;
  createdAt: number;
};

export type EabRecord = {
  id: string;
  directory: string;
  key: SealedValue;
  createdAt: number;
};
