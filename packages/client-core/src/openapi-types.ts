// Type lookups into openapi-typescript's generated `paths`, shared by both clients so the
// way a method's request and response types are derived is defined once.
import type { ListPage } from './pagination.js';

/** The generated operation for a path and method. */
export type OperationOf<Paths, P extends keyof Paths, M extends string> = NonNullable<
  Paths[P][M & keyof Paths[P]]
>;

/** The JSON request body of an operation. */
export type RequestBodyOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;

/** The JSON body of an operation's success response (200, else 201). */
export type SuccessBodyOf<Op> = Op extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer T } } }
    ? T
    : R extends { 201: { content: { 'application/json': infer T } } }
      ? T
      : never
  : never;

/** The query parameters of an operation. */
export type QueryParamsOf<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The element type of the array under `K` in a list response. */
export type ItemOf<B, K extends keyof B> = B[K] extends ReadonlyArray<infer T> ? T : never;

/**
 * One page of a list: the server's body as it is (so extras such as approval `counts` stay
 * typed) plus the core's `items`, `has_more` and `next_after`.
 */
export type PageOf<B, K extends keyof B & string> = B & ListPage<ItemOf<B, K>, K>;
