import type { Request } from 'express';
import { trimTrailingSlashes } from '../trim-end.js';

/**
 * Where a service is reached from outside: its *_PUBLIC_URL when set, else the address the caller
 * used (the Host of a request the caller made, so links and redirects lead back the same way).
 */
export function publicBaseUrl(req: Request, publicUrl: string | undefined, port: number): string {
  if (publicUrl) return trimTrailingSlashes(publicUrl);
  return `${req.protocol}://${req.get('host') ?? `127.0.0.1:${port}`}`;
}
