import type { lookup as dnsLookup } from 'node:dns';
import { signPayload } from '@svc/webhooks';
import { publicStatus } from '../../platform/net/public-url.js';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const SIGNATURE_HEADER = 'Service-Signature';

export interface SendOptions {
  allowPrivate: boolean;
  lookup?: typeof dnsLookup | undefined;
  timeoutMs?: number;
}

export interface SendOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `No response within ${timeoutMs / 1000} s.`;
  }
  // undici reports "fetch failed" and keeps the real reason (DNS, refused, blocked address) in `cause`.
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : null;
  const message = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return message.slice(0, 500);
}

/**
 * One attempt: signed now (a fresh timestamp every attempt), DNS checked and pinned by the
 * SSRF guard, and only a 2xx counts. A 3xx is a failure and is never followed.
 */
export async function sendSigned(
  url: string,
  secret: string,
  body: string,
  now: Date,
  opts: SendOptions,
): Promise<SendOutcome> {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  try {
    const status = await publicStatus(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svc-webhooks/1',
        [SIGNATURE_HEADER]: signPayload(body, secret, { timestamp: now }),
      },
      body,
      allowPrivate: opts.allowPrivate,
      requireHttps: true,
      timeoutMs,
      maxBytes: 64 * 1024,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    });
    if (status >= 200 && status < 300) return { ok: true, status: status, error: null };
    if (status >= 300 && status < 400) {
      return {
        ok: false,
        status: status,
        error: `Redirect (${status}) not followed: only a 2xx counts.`,
      };
    }
    return { ok: false, status: status, error: `The endpoint answered ${status}.` };
  } catch (err) {
    return { ok: false, status: null, error: describe(err, timeoutMs) };
  }
}
