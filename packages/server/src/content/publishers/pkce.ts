import { createHash, randomBytes } from 'node:crypto';

/**
 * PKCE (RFC 7636). The verifier is 43–128 characters of [A-Za-z0-9-._~] (§4.1); 32 random bytes
 * in base64url give 43. The S256 challenge is BASE64URL(SHA256(ASCII(verifier))) (§4.2).
 */
export function createCodeVerifier(random: (n: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(32)).toString('base64url');
}

export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function createPkcePair(random?: (n: number) => Uint8Array) {
  const verifier = createCodeVerifier(random);
  return { verifier, challenge: codeChallengeS256(verifier), method: 'S256' as const };
}
