export {
  APIPromise,
  type APIResponse,
  APIUserAbortError,
  // One base class per client, so `instanceof CommerceApiError` catches every error this
  // client rejects with (and none of the content client's).
  ApiError as CommerceApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  type ListPage,
  MissingUserTokenError,
  NotFoundError,
  type Page,
  PagePromise,
  PermissionDeniedError,
  PollTimeoutError,
  RateLimitError,
  type RequestOptions,
  ResponseTooLargeError,
  TimeoutError,
  UnprocessableEntityError,
} from '@svc/client-core';
// The API's objects and events are defined once, in @svc/webhooks (generated from the server's
// OpenAPI document), so an event's `data` and a client response are the same type.
// Listed by name: `export type *` comes out of the .d.ts bundler as `export *`, which would also
// claim the Node-only `verifyEvent` exists here at run time.
export type {
  ApiErrorObject,
  ApprovalRules,
  Availability,
  Buyer,
  Checkout,
  CheckoutCompletedEvent,
  CheckoutFailedEvent,
  CheckoutRequiresUserActionEvent,
  CheckoutStatus,
  CheckoutUpdatedEvent,
  CommerceComponents,
  CommerceOperations,
  CommercePaths,
  CommerceWebhooks,
  Connection,
  ConnectionNeedsUserEvent,
  ConnectionRevokedEvent,
  ConnectionStatus,
  ErrorResponse,
  HeadersLike,
  LineItem,
  Merchant,
  MerchantCapabilities,
  MerchantStatus,
  MerchantTier,
  Money,
  NextAction,
  NextActionField,
  NextActionType,
  Offer,
  Order,
  OrderStatus,
  OrderUpdatedEvent,
  ShippingAddress,
  ShippingAddressInput,
  StoreRoute,
  Totals,
  Variant,
  VerifyOptions,
  WebhookEndpoint,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
  WebhookPayload,
  WebhookSecret,
  WebhookSignatureErrorCode,
  WebhookTestData,
  WebhookTestEvent,
} from '@svc/webhooks';
// The runtime-neutral (Web Crypto) verifier, so receivers on any runtime need no second import.
// On Node, `@svc/webhooks` also has the synchronous `verifyEvent`.
export {
  getSignatureHeader,
  isKnownEventType,
  SIGNATURE_HEADER,
  verifyEventAsync,
  verifySignatureAsync,
  WEBHOOK_EVENT_TYPES,
  WebhookSignatureError,
} from '@svc/webhooks/web';
export { CommerceClient, type CommerceClientOptions } from './client.js';
export type {
  ApprovalTokenCreateParams,
  ApprovalTokenCreateResponse,
  ApprovalTokenExchangeParams,
  ApprovalTokenExchangeResponse,
} from './resources/approval-tokens.js';
export type {
  CheckoutCreateParams,
  CheckoutUpdateParams,
  CheckoutUserInputParams,
} from './resources/checkouts.js';
export type { ConnectionListPage } from './resources/connections.js';
export type { HealthStatus } from './resources/health.js';
export type { MerchantListPage, MerchantListParams } from './resources/merchants.js';
export type { OfferCreateParams } from './resources/offers.js';
export type { OrderListPage } from './resources/orders.js';
export type {
  SandboxAdvanceOrderParams,
  SandboxConnectionParams,
  SandboxPublicTokenParams,
  SandboxPublicTokenResponse,
} from './resources/sandbox.js';
export type { WebhookEndpointCreateParams } from './resources/webhook-endpoints.js';
export type { JsonBody, JsonResponse, QueryOf, WholeListPromise } from './types.js';
export { VERSION } from './version.js';
export {
  CheckoutWaitAbortedError,
  type CheckoutWaitForOptions,
  CheckoutWaitTimeoutError,
  DEFAULT_WAIT_UNTIL,
  FINAL_CHECKOUT_STATUSES,
} from './wait-for.js';
