import type { Request } from 'express';
import type { Config } from '../../config.js';

/** Where hosted pages live: COMMERCE_PUBLIC_URL when set, else the address the caller used. */
export function publicBaseUrl(req: Request, config: Config): string {
  if (config.commerce.publicUrl) return config.commerce.publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.get('host') ?? `127.0.0.1:${config.commerce.port}`}`;
}
