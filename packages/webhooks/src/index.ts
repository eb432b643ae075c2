// Node entry. Edge runtimes without `node:crypto` import `@svc/webhooks/web` instead, which this file
// re-exports, so Node users get the async variants from here too.
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  checkTimestamp,
  formatHeader,
  parseSignatureHeader,
  type SignOptions,
  signatureMismatch,
  signTimestamp,
  timeWindow,
  toPayloadBytes,
  toSecrets,
  type VerifyOptions,
  type WebhookPayload,
  type WebhookSecret,
} from './core';
import { parseEvent, type WebhookEvent } from './events';

export * from './web';

// The key is the whole secret string, `whsec_` prefix included. The body bytes are fed to the HMAC
// as received: decoding and re-encoding could change them.
function hmac(secret: string, t: number | string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`, 'utf8').update(body).digest();
}

/**
 * Signs a body the way the server does. Returns the `Service-Signature` header value,
 * `t=<unix seconds>,v1=<hex>`; with several secrets, one `v1` per secret.
 */
export function signPayload(payload: WebhookPayload, secret: WebhookSecret, options?: SignOptions): string {
  const secrets = toSecrets(secret);
  const body = toPayloadBytes(payload);
  const t = signTimestamp(options);
  return formatHeader(
    t,
    secrets.map((s) => hmac(s, t, body)),
  );
}

/**
 * Throws a `WebhookSignatureError` unless one `v1` in `header` is the HMAC of this exact body under one
 * of the secrets, and its timestamp is within `toleranceSeconds` (default 300) of `now`.
 */
export function verifySignature(
  payload: WebhookPayload,
  header: string | null | undefined,
  secret: WebhookSecret,
  options?: VerifyOptions,
): void {
  const secrets = toSecrets(secret);
  const body = toPayloadBytes(payload);
  const parsed = parseSignatureHeader(header);
  const time = timeWindow(options);
  let matched = false;
  for (const s of secrets) {
    const expected = hmac(s, parsed.timestampText, body);
    // Lengths are equal by construction: the parser only accepts 32-byte v1 values.
    for (const signature of parsed.signatures) {
      if (timingSafeEqual(expected, signature)) matched = true;
    }
  }
  if (!matched) throw signatureMismatch();
  checkTimestamp(parsed.timestamp, time);
}

/** Verifies like `verifySignature`, then returns the body parsed as a typed event. */
export function verifyEvent(
  payload: WebhookPayload,
  header: string | null | undefined,
  secret: WebhookSecret,
  options?: VerifyOptions,
): WebhookEvent {
  verifySignature(payload, header, secret, options);
  return parseEvent(typeof payload === 'string' ? payload : toPayloadBytes(payload));
}
