// Request and response types are looked up in the OpenAPI document's generated types (kept in
// @svc/webhooks), never written by hand, so a server change shows up here as a type error
// after `pnpm gen:types`, and a misspelled field in a call is a compile error.
import type { ListPage } from '@svc/client-core';
import type { CommercePaths } from '@svc/webhooks';

type Method = 'get' | 'post';

/** The generated operation for a path and method. */
export type Operation<P extends keyof CommercePaths, M extends Method> = NonNullable<CommercePaths[P][M]>;

/** The JSON request body of an operation. */
export type JsonBody<P extends keyof CommercePaths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The JSON body of an operation's success response (200, else 201). */
export type JsonResponse<P extends keyof CommercePaths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: { content: { 'application/json': infer T } } }
      ? T
      : R extends { 201: { content: { 'application/json': infer T } } }
        ? T
        : never
    : never;

/** The query parameters of an operation. */
export type QueryOf<P extends keyof CommercePaths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The element type of the array under `K` in a list response. */
export type ItemOf<B, K extends keyof B> = B[K] extends ReadonlyArray<infer T> ? T : never;

/** One page of a list: the server's body as it is plus the core's `items`, `has_more` and `next_after`. */
export type PageOf<B, K extends keyof B & string> = B & ListPage<ItemOf<B, K>, K>;
