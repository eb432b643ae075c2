// Request and response types are looked up in the generated OpenAPI types, never written by
// hand, so a server change shows up here as a type error after `pnpm gen:types`.
import type { OperationOf, QueryParamsOf, RequestBodyOf, SuccessBodyOf } from '@svc/client-core';
import type { paths } from './generated/content-api.js';

export type { components, operations, paths } from './generated/content-api.js';

type Method = 'get' | 'post' | 'patch' | 'delete';

/** The generated operation for a path and method. */
export type Operation<P extends keyof paths, M extends Method> = OperationOf<paths, P, M>;

/** The JSON request body of an operation. */
export type JsonBody<P extends keyof paths, M extends Method> = RequestBodyOf<Operation<P, M>>;

/** The JSON body of an operation's success response (200, else 201). */
export type JsonResponse<P extends keyof paths, M extends Method> = SuccessBodyOf<Operation<P, M>>;

/** The query parameters of an operation. */
export type QueryOf<P extends keyof paths, M extends Method> = QueryParamsOf<Operation<P, M>>;

export type { ItemOf, PageOf } from '@svc/client-core';
