import { z } from 'zod';
import { Buyer, CONNECTION_STATUSES, ORDER_STATUSES, ShippingAddress } from './common.js';
import { ApprovalRules } from './resources.js';

const id = z.string().min(1).max(200);

export const ListMerchantsQuery = z.strictObject({
  q: z.string().max(200).optional().describe('Searches names, domains and categories.'),
  limit: z.coerce.number().int().min(1).max(200).default(100).describe('Catalog stores per page, 1-200.'),
  after: z.string().max(500).optional().describe('next_after of the previous page.'),
});

export const CreateApprovalBody = z.strictObject({
  client_user_id: z.string().trim().min(1).max(200),
  rules: ApprovalRules.optional(),
  merchant_ids: z.array(id).max(50).optional().describe('Stores offered for connecting, up to 50.'),
  redirect_uri: z.string().max(2000).describe('https (or http://localhost); public_token or error is added.'),
});

export const ExchangeBody = z.strictObject({ public_token: z.string().min(1).max(500) });

export const SandboxPublicTokenBody = z.strictObject({
  client_user_id: z.string().trim().min(1).max(200).optional(),
  rules: ApprovalRules.optional(),
  merchant_ids: z.array(id).max(50).optional().describe('Connected at once, as if the user ticked them.'),
});

export const CreateOfferBody = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(2000)
    .describe(
      "A product page, or for a headless UCP store (no catalog, no product page) any URL on the store's origin together with item_ref.",
    ),
  item_ref: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      "The variant to offer first (one of the product's variants). At a headless UCP store: the store's own item id; the store prices it in a checkout session it is asked to open (and which is canceled at once).",
    ),
});

export const CreateCheckoutBody = z.strictObject({
  offer_id: id.optional(),
  product_url: z
    .string()
    .min(1)
    .max(2000)
    .optional()
    .describe(
      "A product page, or for a headless UCP store (no catalog, no product page) any URL on the store's origin together with item_ref.",
    ),
  item_ref: id
    .optional()
    .describe(
      "The variant to buy (one of the offer's variants). With product_url at a headless UCP store: the store's own item id; the store prices it.",
    ),
  quantity: z.int().min(1).max(20).default(1),
  buyer: Buyer.optional(),
  shipping_address: ShippingAddress.optional(),
});

export const UpdateCheckoutBody = z.strictObject({
  buyer: Buyer.optional(),
  shipping_address: ShippingAddress.optional(),
});

export const UserInputBody = z.strictObject({
  fields: z
    .record(z.string().max(100), z.string().max(500))
    .describe('The values next_action.fields asked for.'),
});

export const CreateWebhookEndpointBody = z.strictObject({ url: z.string().min(1).max(2000) });

export const SandboxConnectionBody = z.strictObject({
  merchant_id: id,
  status: z.enum(CONNECTION_STATUSES).default('active'),
});

export const AdvanceOrderBody = z.strictObject({
  status: z
    .enum(ORDER_STATUSES)
    .optional()
    .describe('Where to move; the next status on the happy path when left out.'),
});
