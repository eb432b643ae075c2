import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (platform access and refresh tokens, PKCE verifiers): AES-256-GCM with a
 * random 96-bit IV per value and a 128-bit auth tag (NIST SP 800-38D). A sealed value reads
 *
 *   v1.<key id>.<iv>.<tag>.<ciphertext>      (each part base64url)
 *
 * - `v1` names the format and the derivation, so a later version can change either.
 * - The key id is the first 8 bytes of SHA-256 over the derived key: it says WHICH key sealed a
 *   value without revealing it, so opening with another key fails with a clear error, and a
 *   later key rotation can find the values still sealed with the old key.
 * - The AES key is derived from SERVICE_SECRET_KEY with HKDF-SHA256 (RFC 5869), so the same
 *   operator secret can key other purposes later without reuse.
 * - `context` is authenticated but not stored (GCM's additional data): a value sealed for one
 *   row and field cannot be moved to another and opened there.
 */

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'svc secret-box v1 aes-256-gcm';

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export interface SecretBox {
  /** The key's public fingerprint, as written into every sealed value. */
  readonly keyId: string;
  seal(plaintext: string, context: string): string;
  /** Throws SecretBoxError when the value was sealed with another key, altered, or is no box. */
  open(sealed: string, context: string): string;
}

/**
 * Reads SERVICE_SECRET_KEY: 32 or more random bytes, written as hex (64+ characters) or base64 /
 * base64url (`openssl rand -base64 32`). Returns the bytes, or why the value is refused.
 */
export function parseSecretKey(value: string): { key: Buffer } | { problem: string } {
  const v = value.trim();
  let key: Buffer;
  if (/^[0-9a-fA-F]+$/.test(v) && v.length % 2 === 0 && v.length >= 64) key = Buffer.from(v, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(v)) key = Buffer.from(v.replace(/={1,2}$/, ''), 'base64url');
  else return { problem: 'must be base64 or hex (generate one with `openssl rand -base64 32`)' };
  if (key.length < 32) {
    return {
      problem: `is too short: it decodes to ${key.length} bytes, and at least 32 random bytes are needed (generate one with \`openssl rand -base64 32\`)`,
    };
  }
  // 32 random bytes have about 30 different values; a typed pattern ("aaaa…", "0101…") has a few.
  if (new Set(key).size < 16) {
    return {
      problem:
        'looks typed rather than random (too few different bytes); generate one with `openssl rand -base64 32`',
    };
  }
  return { key };
}

export function createSecretBox(secret: Buffer): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32));
  const keyId = createHash('sha256').update(key).digest().subarray(0, 8).toString('base64url');

  return {
    keyId,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        VERSION,
        keyId,
        iv.toString('base64url'),
        tag.toString('base64url'),
        ct.toString('base64url'),
      ].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION) {
        throw new SecretBoxError('The stored secret is not in a format this version can read.');
      }
      const [, id, ivText, tagText, ctText] = parts as [string, string, string, string, string];
      if (id !== keyId) {
        throw new SecretBoxError(
          'The stored secret was encrypted with another SERVICE_SECRET_KEY; it cannot be read with this one.',
        );
      }
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new SecretBoxError('The stored secret is damaged.');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretBoxError(
          'The stored secret failed its integrity check (altered, or for another record).',
        );
      }
    },
  };
}
