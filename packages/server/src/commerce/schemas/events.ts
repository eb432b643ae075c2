import { z } from 'zod';
import { named } from '../schemas.js';
import { isoTime } from './common.js';
import { Checkout, Connection, Order } from './resources.js';

export const EVENT_TYPES = [
  'checkout.updated',
  'checkout.requires_user_action',
  'checkout.completed',
  'checkout.failed',
  'order.updated',
  'connection.needs_user',
  'connection.revoked',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const WebhookTestData = named(
  'WebhookTestData',
  z.object({ id: z.string().describe('test_ prefix.'), message: z.string() }),
);

const envelope = <T extends EventType, D extends z.ZodType>(name: string, type: T, data: D) =>
  named(
    name,
    z.object({
      id: z.string().describe('evt_ prefix; the same on every attempt and resend: deduplicate on it.'),
      type: z.literal(type),
      created_at: isoTime,
      data,
    }),
  );

const SUMMARIES: Record<EventType, string> = {
  'checkout.updated': 'Any change to a checkout.',
  'checkout.requires_user_action': 'A checkout needs the user or the application (see next_action).',
  'checkout.completed': 'The order was placed; order_id is set.',
  'checkout.failed': 'The checkout cannot go through; error is set.',
  'order.updated': 'An order was placed or changed status.',
  'connection.needs_user': 'A store connection needs the user.',
  'connection.revoked': 'The user disconnected a store.',
  'webhook.test': 'Send test was pressed in the dashboard.',
};

/** The same delivery rules hold for every type; this says what the receiver should do with each. */
const DELIVERY =
  'Signed with the endpoint secret in Service-Signature; verify it with @svc/webhooks. Events may arrive more than once and out of order: deduplicate on `id`, and read the object back when order matters.';
const DESCRIPTIONS: Record<EventType, string> = {
  'checkout.updated': `Sent with every change to a checkout, alongside the specific checkout event for the same change; \`data\` is the whole checkout after it. ${DELIVERY}`,
  'checkout.requires_user_action': `The checkout entered \`requires_user_action\`: show the user \`next_action\` (a URL to open, fields to fill in, a device task or a store to connect). ${DELIVERY}`,
  'checkout.completed': `The store placed the order: \`order_id\` is set; \`order.updated\` follows for the order itself. ${DELIVERY}`,
  'checkout.failed': `The checkout cannot go through; \`error\` says why in the same shape as API errors. ${DELIVERY}`,
  'order.updated': `An order was placed or moved to another status (placed, shipped, delivered, canceled, returned); \`data\` is the order. ${DELIVERY}`,
  'connection.needs_user': `The user must reconnect a store (for example after the store signed them out) before checkouts there can go on. ${DELIVERY}`,
  'connection.revoked': `The user disconnected a store; its status is \`revoked\`. ${DELIVERY}`,
  'webhook.test': `Sent when Send test is pressed in the dashboard, to check that the endpoint receives and verifies events. \`data\` is a test object, not an API object. ${DELIVERY}`,
};

const DATA: Record<EventType, z.ZodType> = {
  'checkout.updated': Checkout,
  'checkout.requires_user_action': Checkout,
  'checkout.completed': Checkout,
  'checkout.failed': Checkout,
  'order.updated': Order,
  'connection.needs_user': Connection,
  'connection.revoked': Connection,
  'webhook.test': WebhookTestData,
};

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** One named envelope per type; these feed the OpenAPI `webhooks` section. */
export const eventEnvelopes = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    {
      summary: SUMMARIES[type],
      description: DESCRIPTIONS[type],
      schema: envelope(`${pascal(type)}Event`, type, DATA[type]),
    },
  ]),
) as unknown as Record<EventType, { summary: string; description: string; schema: z.ZodType }>;
