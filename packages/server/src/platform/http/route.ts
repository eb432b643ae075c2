import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A schema-less "no body" marker is expressed by leaving `body` out. */
type Schema = z.ZodType;
type Out<S> = S extends Schema ? z.output<S> : undefined;
type In<S> = S extends Schema ? z.input<S> : undefined;

/** Non-default status or extra headers, e.g. `reply(body, { status: 201 })`. */
export class Reply<T = unknown> {
  constructor(
    readonly body: T,
    readonly status?: number,
    readonly headers?: Record<string, string>,
  ) {}
}

export const reply = <T>(body: T, opts: { status?: number; headers?: Record<string, string> } = {}) =>
  new Reply(body, opts.status, opts.headers);

export interface HandlerInput<Auth, P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: Auth;
  requestId: string;
  /** The express request, for the rare handler that needs a header; prefer the typed fields. */
  req: Request;
}

/**
 * One route, declared once. Validation, the OpenAPI document and (through it) the clients'
 * types all come from this object.
 */
export interface RouteDef<
  AuthMap extends Record<string, unknown> = Record<string, unknown>,
  A extends keyof AuthMap & string = keyof AuthMap & string,
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
  R extends Schema = Schema,
> {
  method: HttpMethod;
  /** Express-style path, e.g. `/v1/checkouts/:id`. */
  path: string;
  auth: A;
  /** Stable name used as the OpenAPI operationId. */
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  /** Success status; 200 unless stated. */
  status?: number;
  /** Extra documented error responses, as `{ status: 'description' }`. */
  errors?: Record<number, string>;
  /** Middleware that runs before validation, e.g. a multipart parser. */
  before?: RequestHandler[];
  /** How the body arrives: JSON (default) or multipart form data. */
  bodyType?: 'json' | 'multipart';
  /** Left out of the OpenAPI document (internal or HTML routes). */
  hidden?: boolean;
  /**
   * `false`: the handler never reads the service's shared clock, so a service that re-reads it
   * before each request (the content service's sandbox clock, a round trip on PostgreSQL) skips
   * that read here. The service's route wrapper honours it (content/app.ts); such a handler must
   * run on a clock that throws if read (`SandboxClock.unsynced`), so the claim cannot go stale.
   */
  readsTime?: false;
  /**
   * `true`: the handler claims its Idempotency-Key inside its own first transaction
   * (`IdempotentRequest.claimIn`), so the commerce wrapper makes no claim of its own before it.
   */
  claimsKeyInTransaction?: true;
  /**
   * `true`: a 200 answer carries a strong `ETag` (a digest of its bytes), and a GET or HEAD whose
   * If-None-Match names it is answered 304 without a body (http/conditional.ts). For reads whose
   * answers are large or polled: an offer, a checkout.
   */
  etag?: true;
  handler: (
    input: HandlerInput<AuthMap[A], Out<P>, Out<Q>, Out<B>>,
  ) => Promise<In<R> | Reply<In<R>>> | In<R> | Reply<In<R>>;
}

// biome-ignore lint/suspicious/noExplicitAny: a route list mixes routes of every schema type.
type Any = any;
export type AnyRoute<AuthMap extends Record<string, unknown> = Any> = RouteDef<
  AuthMap,
  Any,
  Any,
  Any,
  Any,
  Any
>;

/**
 * `const route = routeKit<CommerceAuth>()` gives a `defineRoute` whose handlers see the
 * right auth context type for the `auth` name they declare.
 */
export function routeKit<AuthMap extends Record<string, unknown>>() {
  return function defineRoute<
    A extends keyof AuthMap & string,
    R extends Schema,
    P extends Schema | undefined = undefined,
    Q extends Schema | undefined = undefined,
    B extends Schema | undefined = undefined,
  >(def: RouteDef<AuthMap, A, P, Q, B, R>): RouteDef<AuthMap, A, P, Q, B, R> {
    return def;
  };
}
