// Request and response types are looked up in the OpenAPI document's generated types (kept in
// @svc/webhooks), never written by hand, so a server change shows up here as a type error
// after `pnpm gen:types`, and a misspelled field in a call is a compile error.
import type {
  OperationOf,
  Page,
  PagePromise,
  QueryParamsOf,
  RequestBodyOf,
  SuccessBodyOf,
} from '@svc/client-core';
import type { CommercePaths } from '@svc/webhooks';

type Method = 'get' | 'post';

/** The generated operation for a path and method. */
export type Operation<P extends keyof CommercePaths, M extends Method> = OperationOf<CommercePaths, P, M>;

/** The JSON request body of an operation. */
export type JsonBody<P extends keyof CommercePaths, M extends Method> = RequestBodyOf<Operation<P, M>>;

/** The JSON body of an operation's success response (200, else 201). */
export type JsonResponse<P extends keyof CommercePaths, M extends Method> = SuccessBodyOf<Operation<P, M>>;

/** The query parameters of an operation. */
export type QueryOf<P extends keyof CommercePaths, M extends Method> = QueryParamsOf<Operation<P, M>>;

export type { ItemOf, PageOf } from '@svc/client-core';

/**
 * @deprecated Every list is a `PagePromise` now: lazy, iterable, with `firstPage()`, `pages()`
 * and `withResponse()`. Kept as a type alias so code that names it still compiles.
 */
export type WholeListPromise<T, P extends Page<T> = Page<T>> = PagePromise<T, P>;
