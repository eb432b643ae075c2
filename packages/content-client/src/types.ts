// Request and response types are looked up in the generated OpenAPI types, never written by
// hand, so a server change shows up here as a type error after `pnpm gen:types`.
import type { ListPage } from '@svc/client-core';
import type { paths } from './generated/content-api.js';

export type { components, operations, paths } from './generated/content-api.js';

type Method = 'get' | 'post' | 'patch' | 'delete';

/** The generated operation for a path and method. */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation. */
export type JsonBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The JSON body of an operation's success response (200, else 201). */
export type JsonResponse<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: { content: { 'application/json': infer T } } }
      ? T
      : R extends { 201: { content: { 'application/json': infer T } } }
        ? T
        : never
    : never;

/** The query parameters of an operation. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The element type of the array under `K` in a list response. */
export type ItemOf<B, K extends keyof B> = B[K] extends ReadonlyArray<infer T> ? T : never;

/**
 * One page of a list: the server's body as it is (so extras such as approval `counts` stay
 * typed) plus the core's `items`, `has_more` and `next_after`.
 */
export type PageOf<B, K extends keyof B & string> = B & ListPage<ItemOf<B, K>, K>;
