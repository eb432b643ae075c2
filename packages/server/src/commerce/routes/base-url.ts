import type { Request } from 'express';
import type { Config } from '../../config.js';
import { publicBaseUrl as baseUrlOf } from '../../platform/http/base-url.js';

/** Where hosted pages live: COMMERCE_PUBLIC_URL when set, else the address the caller used. */
export const publicBaseUrl = (req: Request, config: Config): string =>
  baseUrlOf(req, config.commerce.publicUrl, config.commerce.port);
