import { WebhookSignatureError } from './errors';
import type { Checkout, Connection, Order } from './resources';

interface Envelope<T extends string, D> {
  /** `evt_` prefix. Stable across retries and resends: deduplicate on it. */
  id: `evt_${string}`;
  type: T;
  /** ISO 8601. When the change happened, not when this attempt was sent. */
  created_at: string;
  /** The full object after the change. It may already be stale: read it back when order matters. */
  data: D;
}

/** Sent when "Send test" is pressed in the dashboard. */
export interface WebhookTestData {
  id: `test_${string}`;
  message: string;
}

export type CheckoutUpdatedEvent = Envelope<'checkout.updated', Checkout>;
export type CheckoutRequiresUserActionEvent = Envelope<'checkout.requires_user_action', Checkout>;
export type CheckoutCompletedEvent = Envelope<'checkout.completed', Checkout>;
export type CheckoutFailedEvent = Envelope<'checkout.failed', Checkout>;
export type OrderUpdatedEvent = Envelope<'order.updated', Order>;
export type ConnectionNeedsUserEvent = Envelope<'connection.needs_user', Connection>;
export type ConnectionRevokedEvent = Envelope<'connection.revoked', Connection>;
export type WebhookTestEvent = Envelope<'webhook.test', WebhookTestData>;

export type WebhookEvent =
  | CheckoutUpdatedEvent
  | CheckoutRequiresUserActionEvent
  | CheckoutCompletedEvent
  | CheckoutFailedEvent
  | OrderUpdatedEvent
  | ConnectionNeedsUserEvent
  | ConnectionRevokedEvent
  | WebhookTestEvent;

export type WebhookEventType = WebhookEvent['type'];

/** The event type for one `type` value, e.g. `WebhookEventOf<'order.updated'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = Object.freeze([
  'checkout.updated',
  'checkout.requires_user_action',
  'checkout.completed',
  'checkout.failed',
  'order.updated',
  'connection.needs_user',
  'connection.revoked',
  'webhook.test',
]);

/** False for types added to the API after this version of the package. */
export function isKnownEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

// fatal: a body that is not valid UTF-8 is not a JSON event, and silently substituting U+FFFD would
// hide that.
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Only the envelope is checked: the body is already authenticated, so this guards against pointing the
 * verifier at the wrong kind of request rather than against a hostile sender. Unknown `type` values
 * pass through so a new event type never turns into failed deliveries and retries.
 */
export function parseEvent(payload: string | Uint8Array): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(typeof payload === 'string' ? payload : decoder.decode(payload));
  } catch (cause) {
    throw new WebhookSignatureError('invalid_payload', 'The signature is valid but the body is not JSON.', {
      cause,
    });
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !('id' in value && typeof value.id === 'string') ||
    !('type' in value && typeof value.type === 'string') ||
    !('created_at' in value && typeof value.created_at === 'string') ||
    !('data' in value && typeof value.data === 'object' && value.data !== null)
  ) {
    throw new WebhookSignatureError(
      'invalid_payload',
      'The signature is valid but the body is not an event envelope ({ id, type, created_at, data }).',
    );
  }
  return value as WebhookEvent;
}
