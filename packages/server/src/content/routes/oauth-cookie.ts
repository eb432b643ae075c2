import type { Request } from 'express';
import type { Platform } from '../domain.js';
import type { BrowserBinding } from '../services/oauth-connect.js';
import { oauthCallbackPath } from '../services/oauth-connect.js';

/**
 * The cookie that binds a started connect to the person's browser (see oauth-connect.ts).
 * HttpOnly: no script reads it. SameSite=Lax: the browser sends it on the platform's top-level
 * redirect to the callback, and on no cross-site request. Path: only the callback sees it.
 * Secure whenever the server is reached over https.
 */
export function bindingCookie(b: BrowserBinding, platform: Platform, baseUrl: string): string {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${b.cookie}=${b.value}; Max-Age=${b.maxAgeSeconds}; Path=${oauthCallbackPath(platform)}; HttpOnly; SameSite=Lax${secure}`;
}

/** One cookie from the request's Cookie header; the values we set are base64url, never quoted. */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
