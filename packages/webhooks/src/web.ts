// Entry for edge runtimes (`@svc/webhooks/web`): Web Crypto only, so nothing here may import
// `node:*` or use `Buffer`. The Node entry re-exports this file, so the async API exists in both.
import {
  checkTimestamp,
  formatHeader,
  parseSignatureHeader,
  type SignOptions,
  signatureMismatch,
  signedContent,
  signTimestamp,
  timeWindow,
  toPayloadBytes,
  toSecrets,
  utf8,
  type VerifyOptions,
  type WebhookPayload,
  type WebhookSecret,
} from './core';
import { parseEvent, type WebhookEvent } from './events';

export {
  DEFAULT_TOLERANCE_SECONDS,
  getSignatureHeader,
  type HeadersLike,
  SIGNATURE_HEADER,
  SIGNATURE_HEADER_LOWER,
  type SignOptions,
  type VerifyOptions,
  type WebhookPayload,
  type WebhookSecret,
} from './core';
export { WebhookSignatureError, type WebhookSignatureErrorCode } from './errors';
export {
  type CheckoutCompletedEvent,
  type CheckoutFailedEvent,
  type CheckoutRequiresUserActionEvent,
  type CheckoutUpdatedEvent,
  type ConnectionNeedsUserEvent,
  type ConnectionRevokedEvent,
  isKnownEventType,
  type OrderUpdatedEvent,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookTestData,
  type WebhookTestEvent,
} from './events';
export type * from './resources';

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s)
    throw new Error(
      '@svc/webhooks/web needs Web Crypto (globalThis.crypto.subtle), available in Node >= 20.',
    );
  return s;
}

const importKey = (secret: string, usage: 'sign' | 'verify') =>
  subtle().importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

/** Web Crypto version of `signPayload`: the same header, for senders and tests on edge runtimes. */
export async function signPayloadAsync(
  payload: WebhookPayload,
  secret: WebhookSecret,
  options?: SignOptions,
): Promise<string> {
  const secrets = toSecrets(secret);
  const body = toPayloadBytes(payload);
  const t = signTimestamp(options);
  const content = signedContent(t, body);
  const signatures = await Promise.all(
    secrets.map(
      async (s) => new Uint8Array(await subtle().sign('HMAC', await importKey(s, 'sign'), content)),
    ),
  );
  return formatHeader(t, signatures);
}

/** Web Crypto version of `verifySignature`; rejects with a `WebhookSignatureError`. */
export async function verifySignatureAsync(
  payload: WebhookPayload,
  header: string | null | undefined,
  secret: WebhookSecret,
  options?: VerifyOptions,
): Promise<void> {
  const secrets = toSecrets(secret);
  const body = toPayloadBytes(payload);
  const parsed = parseSignatureHeader(header);
  const time = timeWindow(options);
  const content = signedContent(parsed.timestampText, body);
  let matched = false;
  for (const s of secrets) {
    const key = await importKey(s, 'verify');
    // subtle.verify compares in constant time, unlike comparing hex strings.
    for (const signature of parsed.signatures) {
      if (await subtle().verify('HMAC', key, signature, content)) matched = true;
    }
  }
  if (!matched) throw signatureMismatch();
  checkTimestamp(parsed.timestamp, time);
}

/** Web Crypto version of `verifyEvent`: verifies, then parses the body as a typed event. */
export async function verifyEventAsync(
  payload: WebhookPayload,
  header: string | null | undefined,
  secret: WebhookSecret,
  options?: VerifyOptions,
): Promise<WebhookEvent> {
  await verifySignatureAsync(payload, header, secret, options);
  return parseEvent(typeof payload === 'string' ? payload : toPayloadBytes(payload));
}
