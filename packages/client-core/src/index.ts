export { APIPromise, type APIResponse } from './api-promise.js';
export {
  APIUserAbortError,
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  apiErrorFromResponse,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  MissingUserTokenError,
  NotFoundError,
  PermissionDeniedError,
  PollTimeoutError,
  parseErrorBody,
  RateLimitError,
  ResponseTooLargeError,
  TimeoutError,
  UnprocessableEntityError,
} from './errors.js';
export type {
  ItemOf,
  OperationOf,
  PageOf,
  QueryParamsOf,
  RequestBodyOf,
  SuccessBodyOf,
} from './openapi-types.js';
export {
  API_VERSION_PATH,
  type ClientOptions,
  type CoreConfig,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  normalizeBaseUrl,
  type ResolvedConfig,
  type Sleep,
} from './options.js';
export { type FetchPage, type ListPage, type Page, PagePromise, toListPage } from './pagination.js';
export {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_MAX_INTERVAL_MS,
  DEFAULT_POLL_TIMEOUT_MS,
  type PollOptions,
  poll,
} from './poll.js';
export {
  ClientCore,
  encodePath,
  type FinalRequestOptions,
  type HeadersOption,
  type HttpMethod,
  type ListRequestOptions,
  type QueryParams,
  type RequestOptions,
} from './request.js';
export { APIResource, type ListOptions, pagedList, wholeList } from './resource.js';
export {
  backoffDelay,
  IDEMPOTENCY_KEY_IN_USE,
  INITIAL_RETRY_DELAY_MS,
  isRetryableStatus,
  MAX_RETRY_AFTER_MS,
  MAX_RETRY_DELAY_MS,
  parseRetryAfter,
  sleep,
} from './retry.js';
