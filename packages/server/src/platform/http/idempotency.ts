import { AsyncLocalStorage } from 'node:async_hooks';
import { sha256Hex } from '../api-key-hash.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { checkJsonDepth } from './json-depth.js';
import type { RouteResult, RouteWrapper } from './mount.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  /** ISO time after which an `in_flight` record is treated as abandoned (its process died). */
  lockedUntil: string;
  /** ISO time after which the key may be used again for anything. */
  expiresAt: string;
  response: StoredResponse | null;
  requestId: string;
  createdAt: string;
}

export interface IdempotencyTx {
  find(scope: string, key: string): Promise<IdempotencyRecord | undefined>;
  put(record: IdempotencyRecord): Promise<void>;
}

/** Where records live. Each service brings its own table; the engine only needs these four calls. */
export interface IdempotencyStorage {
  /** Runs `fn` so that no other claim on any key interleaves with it (a database transaction). */
  atomically<T>(fn: (tx: IdempotencyTx) => Promise<T>): Promise<T>;
  /**
   * Stores the answer of a record that is still `in_flight`; a record already answered keeps its
   * answer (the operation's own final transaction may have stored it, see `idempotentRequest`).
   */
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  release(scope: string, key: string): Promise<void>;
}

/**
 * The key of the request whose handler is running, for the service's final transaction.
 *
 * The wrapper stores a success after the handler returns, in a write of its own. A process killed
 * between the operation's last commit and that write would leave the key `in_flight` over an
 * operation that happened, and a retry would run it again. A service that must not let that
 * happen writes the answer itself, in the transaction that makes the operation final (with the
 * storage's transactional writer, e.g. `idempotencyAnswers(tx).complete(scope, key, responseFor(body))`
 * in `platform/db/idempotency-store.ts`). It may also keep `scope` and `key`
 * with work that another process may finish (crash recovery), which then answers the key the same
 * way. The wrapper's own write after the handler then finds the record answered and leaves it.
 */
export interface IdempotentRequest {
  scope: string;
  key: string;
  /** The response the route sends when its handler returns `body`: its success status, no extra headers. */
  responseFor(body: unknown): StoredResponse;
}

const running = new AsyncLocalStorage<IdempotentRequest>();

/** The Idempotency-Key of the request being handled in this async context, if it sent one. */
export const idempotentRequest = (): IdempotentRequest | undefined => running.getStore();

export interface IdempotencyOptions<AuthMap extends Record<string, unknown>> {
  storage: IdempotencyStorage;
  clock: Clock;
  /**
   * Who the key belongs to. `scope` separates key spaces (e.g. API key + environment);
   * `principal` (e.g. the user) joins the fingerprint. `null` turns idempotency off for the request.
   */
  identify(input: Parameters<RouteWrapper<AuthMap>>[0]['input']): { scope: string; principal: string } | null;
  /** Replay window; Stripe's 24 hours by default. */
  ttlMs?: number;
  /** How long a claimed key stays locked if the request never finishes (a crash). */
  lockMs?: number;
}

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * JSON with sorted object keys, so `{a,b}` and `{b,a}` are the same request. It recurses, so
 * callers check the depth first (`checkJsonDepth`).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Stripe's rule: a result is kept once the operation started executing. Parameter errors (400)
 * never are, so a corrected retry with the same key works; nor are 5xx, whose transaction rolled
 * back, so a retry runs again instead of replaying an outage for a day.
 */
const keepsError = (err: AppError) => err.status !== 400 && err.status < 500;

export function idempotency<AuthMap extends Record<string, unknown>>(
  opts: IdempotencyOptions<AuthMap>,
): RouteWrapper<AuthMap> {
  const ttlMs = opts.ttlMs ?? 24 * 60 * 60 * 1000;
  const lockMs = opts.lockMs ?? 60 * 1000;
  // A key claimed before this process started cannot be running here: one process serves a data
  // directory, so its claimant died (a crash or kill) and the lock protects nothing.
  const startedAt = opts.clock.now().toISOString();

  return async ({ route, input }, run) => {
    if (route.method !== 'post') return run();
    const key = input.req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return run();
    if (!KEY_SHAPE.test(key)) {
      throw new AppError(
        400,
        'INVALID_REQUEST',
        `The ${IDEMPOTENCY_HEADER} header must be 1 to 255 visible ASCII characters.`,
        { param: IDEMPOTENCY_HEADER },
      );
    }
    const who = opts.identify(input);
    if (!who) return run();

    const path = input.req.originalUrl.split('?')[0] ?? input.req.path;
    // canonicalJson recurses: a body nested thousands deep would overflow the stack (a 500).
    checkJsonDepth(input.body);
    const fingerprint = sha256Hex(
      `${route.method.toUpperCase()} ${path}\n${who.principal}\n${canonicalJson(input.body)}`,
    );
    const now = opts.clock.now();
    const nowIso = now.toISOString();

    const decision = await opts.storage.atomically(async (tx) => {
      const existing = await tx.find(who.scope, key);
      if (existing && existing.expiresAt > nowIso) {
        if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' as const };
        if (existing.state === 'done' && existing.response) return { kind: 'replay' as const, existing };
        if (existing.lockedUntil > nowIso && existing.createdAt >= startedAt)
          return { kind: 'busy' as const };
        // Locked by a request whose process died (its lock ran out, or it was claimed before this
        // process started): this retry takes the key over. An operation that committed part of
        // its work before the crash recognises the key and answers with its outcome (see
        // `IdempotentRequest`); one that committed nothing simply runs.
      }
      await tx.put({
        scope: who.scope,
        key,
        fingerprint,
        state: 'in_flight',
        lockedUntil: new Date(now.getTime() + lockMs).toISOString(),
        expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
        response: null,
        requestId: input.requestId,
        createdAt: nowIso,
      });
      return { kind: 'run' as const };
    });

    if (decision.kind === 'mismatch') {
      throw new AppError(
        400,
        'INVALID_REQUEST',
        `Keys for idempotent requests can only be used with the same method, path, user and body as the first request. This ${IDEMPOTENCY_HEADER} was first used for a different request.`,
        { param: IDEMPOTENCY_HEADER },
      );
    }
    if (decision.kind === 'busy') {
      throw new AppError(
        409,
        'IDEMPOTENCY_KEY_IN_USE',
        `A request with this ${IDEMPOTENCY_HEADER} is still being processed. Retry after it finishes to get its result.`,
        { param: IDEMPOTENCY_HEADER, headers: { 'Retry-After': '1' } },
      );
    }
    if (decision.kind === 'replay') {
      const stored = decision.existing.response as StoredResponse;
      return {
        status: stored.status,
        body: stored.body,
        headers: {
          ...stored.headers,
          'Idempotent-Replayed': 'true',
          'Original-Request': decision.existing.requestId,
        },
      };
    }

    const request: IdempotentRequest = {
      scope: who.scope,
      key,
      responseFor: (body) => ({ status: route.status ?? 200, body, headers: {} }),
    };
    let result: RouteResult;
    try {
      result = await running.run(request, run);
    } catch (err) {
      if (err instanceof AppError && keepsError(err)) {
        await opts.storage.complete(who.scope, key, {
          status: err.status,
          body: {
            error: {
              code: err.code,
              message: err.message,
              ...(err.param === undefined ? {} : { param: err.param }),
              request_id: input.requestId,
            },
          },
          headers: err.headers ?? {},
        });
      } else {
        await opts.storage.release(who.scope, key);
      }
      throw err;
    }
    await opts.storage.complete(who.scope, key, result);
    return result;
  };
}

/** In-memory storage for tests and single-process embedders. */
export function memoryIdempotencyStorage(): IdempotencyStorage & { records: Map<string, IdempotencyRecord> } {
  const records = new Map<string, IdempotencyRecord>();
  const id = (scope: string, key: string) => `${scope}\u0000${key}`;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    records,
    atomically<T>(fn: (tx: IdempotencyTx) => Promise<T>): Promise<T> {
      const tx: IdempotencyTx = {
        find: async (scope, key) => records.get(id(scope, key)),
        put: async (record) => {
          records.set(id(record.scope, record.key), record);
        },
      };
      const next = queue.then(() => fn(tx));
      queue = next.catch(() => undefined);
      return next;
    },
    async complete(scope, key, response) {
      const record = records.get(id(scope, key));
      if (record?.state === 'in_flight') records.set(id(scope, key), { ...record, state: 'done', response });
    },
    async release(scope, key) {
      records.delete(id(scope, key));
    },
  };
}
