import type { lookup as dnsLookup } from 'node:dns';
import { setMaxListeners } from 'node:events';
import { signPayload } from '@svc/webhooks';
import { outboundReady, publicStatus } from '../../platform/net/public-url.js';

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

/**
 * One deadline for the attempts a dispatcher step starts together (they start in the same tick):
 * one timer for the batch instead of one per attempt, which was a share of every delivery's CPU.
 * Each attempt still ends no later than `timeoutMs` after it started; the timer starts once the
 * HTTP client is loaded, so the first batch after start does not spend its time on the import.
 * Every attempt in flight listens to it, up to the dispatcher's slots, so the listener warning is
 * off for this signal.
 */
export async function sendDeadline(opts: Pick<SendOptions, 'timeoutMs'>): Promise<AbortSignal> {
  await outboundReady();
  const signal = AbortSignal.timeout(opts.timeoutMs ?? DELIVERY_TIMEOUT_MS);
  setMaxListeners(0, signal);
  return signal;
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
 * SSRF guard, and only a 2xx counts. A 3xx is a failure and is never followed. `batchDeadline`:
 * the batch's (`sendDeadline`); without one, the attempt gets a timeout of its own. `connections`:
 * the most attempts the caller has in flight to this endpoint, which sizes its connection pool.
 */
export async function sendSigned(
  url: string,
  secret: string,
  body: string,
  now: Date,
  opts: SendOptions & { connections: number },
  batchDeadline?: Promise<AbortSignal>,
): Promise<SendOutcome> {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  try {
    const deadline = await batchDeadline;
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
      connections: opts.connections,
      ...(deadline ? { signal: deadline } : {}),
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
