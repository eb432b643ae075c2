// Named aliases of the commerce API's OpenAPI schemas. The generated file only has `paths`,
// `components`, `operations` and `webhooks`; these names are what people write in their own code
// (`const c: Checkout = event.data`). They live here, next to the events that carry them, so
// @svc/commerce-client re-exports them instead of declaring the shapes a second time.
import type { components, operations, paths, webhooks } from './generated/commerce-api';

type Schemas = components['schemas'];

/** Every commerce route: `CommercePaths['/v1/checkouts/{id}']['get']`. */
export type CommercePaths = paths;
/** Every named schema: `CommerceComponents['schemas']['Checkout']`. */
export type CommerceComponents = components;
/** Every operation by its `operationId`: `CommerceOperations['confirmCheckout']`. */
export type CommerceOperations = operations;
/** The OpenAPI `webhooks` section: one entry per event type. */
export type CommerceWebhooks = webhooks;

/** An amount in minor units (cents) plus an ISO 4217 currency code. */
export type Money = Schemas['Money'];

export type Merchant = Schemas['Merchant'];
export type MerchantTier = Merchant['tier'];
export type MerchantStatus = Merchant['status'];
export type MerchantCapabilities = Merchant['capabilities'];
/** How the service buys from a store: `device_session`, `ucp` or `browser`. */
export type StoreRoute = Merchant['route'];

export type Offer = Schemas['Offer'];
export type Variant = Schemas['Variant'];
export type Availability = Offer['availability'];

export type Checkout = Schemas['Checkout'];
export type CheckoutStatus = Checkout['status'];
export type LineItem = Schemas['LineItem'];
export type Totals = Schemas['Totals'];
export type Buyer = Schemas['Buyer'];
/** The shipping address as stored and returned (the country upper-cased). */
export type ShippingAddress = Schemas['ShippingAddress'];
/** The shipping address as sent on checkout creation and update: the same shape; any case of country. */
export type ShippingAddressInput = Schemas['ShippingAddress'];
/** What the app or the user must do while a checkout is `requires_user_action`. */
export type NextAction = Schemas['NextAction'];
export type NextActionType = NextAction['type'];
export type NextActionField = Schemas['NextActionField'];
/** The `error` of a failed checkout; the same shape as an API error body's `error`. */
export type ApiErrorObject = Schemas['ApiErrorObject'];
/** The body of every API error response: `{ error: { code, message, param?, request_id } }`. */
export type ErrorResponse = Schemas['Error'];

export type Order = Schemas['Order'];
export type OrderStatus = Order['status'];

export type Connection = Schemas['Connection'];
export type ConnectionStatus = Connection['status'];

/** Spending rules a user approves: `max_per_order`, `max_per_day`, `confirm_above`, ... */
export type ApprovalRules = Schemas['ApprovalRules'];
/** Returned once, at creation: keep `secret` on the receiver. */
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
