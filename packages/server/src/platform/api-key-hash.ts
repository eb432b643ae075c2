import { createHash } from 'node:crypto';

/** Keys and tokens are stored only as SHA-256: a leaked database does not leak credentials. */
export const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Reads `Authorization: Bearer <token>`; anything else is treated as no credential. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
