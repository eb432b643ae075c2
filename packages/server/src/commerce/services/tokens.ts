import { sha256Hex } from '../../platform/api-key-hash.js';
import { randomBase62 } from '../../platform/ids.js';
import type { CommerceEnv } from '../db/api-keys-store.js';

/**
 * Bearer tokens handed out by the commerce service. The environment is in the prefix, as with
 * API keys, so a token pasted into the wrong environment is recognisable in logs and support.
 */
export type TokenKind = 'user' | 'public' | 'approval' | 'confirm' | 'form';

export function newToken(kind: TokenKind, env: CommerceEnv): { token: string; hash: string } {
  const token = `${kind}-${env}-${randomBase62(40)}`;
  return { token, hash: sha256Hex(token) };
}

export const tokenHash = (token: string) => sha256Hex(token);

/** The environment a token names in its prefix, or null for something that is not one of ours. */
export function tokenEnv(token: string): CommerceEnv | null {
  const env = /^[a-z]+-(sandbox|live)-/.exec(token)?.[1];
  return env === 'sandbox' || env === 'live' ? env : null;
}
