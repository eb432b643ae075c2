import type { Request } from 'express';
import { sha256Hex } from '../api-key-hash.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { isGoneHere } from '../instance.js';
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
  /**
   * The instance that claimed the key (`instanceName`): a retry may take over at once when that
   * process is gone from this machine (kill -9, then a restart), instead of waiting out the lock.
   */
  owner: string | null;
}

/**
 * Where records live. Each service brings its own table. Every call is one statement, so claims
 * stay correct with several processes on one database (no read-then-write across statements):
 * a key is claimed by the one insert that lands, or taken over by the one replace that still
 * finds the record it decided on.
 */
export interface IdempotencyStorage {
  find(scope: string, key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Stores `record` unless the key already has one; true when this call stored it. A claim has no
   * response; a record stored with one is stored answered (`done`).
   */
  insert(record: IdempotencyRecord): Promise<boolean>;
  /**
   * Replaces `previous` (an expired or abandoned record) with `record`, only while the stored
   * record is still `previous` (same request id and state); true when this call replaced it.
   */
  replace(previous: IdempotencyRecord, record: IdempotencyRecord): Promise<boolean>;
  /**
   * Stores the answer of a record that is still `in_flight`; a record already answered keeps its
   * answer (the operation's own final transaction may have stored it, see `IdempotentRequest`).
   */
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  /** Frees a key this request claimed (`requestId`) and never answered; a later claimant's stays. */
  release(scope: string, key: string, requestId: string): Promise<void>;
}

/**
 * The key of the request whose handler is running, for the service's final transaction: the
 * route hands it to the service (`idempotentRequestOf(req)`).
 *
 * The wrapper stores a success after the handler returns, in a write of its own. A process killed
 * between the operation's last commit and that write would leave the key `in_flight` over an
 * operation that happened, and a retry would run it again. A service that must not let that
 * happen writes the answer itself, in the transaction that makes the operation final (with the
 * storage's transactional writer, e.g. `idempotencyWrites(tx).complete(scope, key, responseFor(body))`
 * in `platform/db/idempotency-store.ts`). It may also keep `scope` and `key`
 * with work that another process may finish (crash recovery), which then answers the key the same
 * way. Once that transaction has committed, the service calls `answered()` and the wrapper makes
 * no write of its own; without it the wrapper's write finds the record answered and leaves it.
 */
export interface IdempotentRequest {
  scope: string;
  key: string;
  /** The response the route sends when its handler returns `body`: its success status, no extra headers. */
  responseFor(body: unknown): StoredResponse;
  /**
   * Says this request's answer is stored: call it once the transaction that stored it has
   * committed, never before (a rollback would leave the key `in_flight` over nothing). The wrapper
   * then skips its own write, which would only find the record answered: a statement and a second
   * serialisation of the body saved on every keyed request of such a route.
   */
  answered(): void;
  /**
   * Claims the key in the caller's transaction, on a route that declares `claimsKeyInTransaction`:
   * the wrapper then makes no claim of its own before the handler, and the operation's first
   * transaction calls this before anything else, with the storage's insert on that transaction
   * (`idempotencyWrites(tx).insert`). A fresh key (the usual case) so costs no statement and no
   * commit of its own, and a crash or a rollback before that commit leaves no claim behind.
   *
   * When the key already has a record it throws `KeyTaken`: the transaction rolls back, and the
   * wrapper decides as for any other route (replay, mismatch, busy, takeover), then runs the
   * handler again holding the key; this call then does nothing. Elsewhere it does nothing.
   */
  claimIn(insert: IdempotencyStorage['insert']): Promise<void>;
}

/**
 * The key already has a record (another request's, or an earlier one's with this key): thrown by
 * `claimIn` inside the operation's transaction so it rolls back. The wrapper catches it; a
 * handler must let it through.
 */
export class KeyTaken extends Error {
  constructor() {
    super('The Idempotency-Key already has a record; the wrapper decides this request.');
  }
}

/**
 * Each keyed request being handled, by its request object, while its handler runs. Not an
 * AsyncLocalStorage: on Node 20 the first `run()` of one turns on async hooks for every promise
 * of the process for good, which made every later request dearer, keyed or not (about 0.17 µs
 * an await; docs/benchmarks/history.md, "The keyed confirm on SQLite").
 */
const running = new WeakMap<object, IdempotentRequest>();

/** The Idempotency-Key `req` sent, while its handler runs; undefined without one. */
export const idempotentRequestOf = (req: object): IdempotentRequest | undefined => running.get(req);

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
  /** This instance's name (`instanceName`), stored with each claim. */
  owner: string;
}

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/** What `runOnce` returns when the handler's own claim found the key taken. */
const KEY_TAKEN = Symbol('key taken');

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

type Decision =
  | { kind: 'run' }
  | { kind: 'mismatch' }
  | { kind: 'busy' }
  | { kind: 'replay'; existing: IdempotencyRecord };

/**
 * Claims the key for `claim`, or says why not. Instances race here, so each step is one
 * statement: the insert lands for exactly one of them; a record found in the way is replayed,
 * refused, or (expired, or abandoned by a dead claimant) replaced, and the replace lands only if
 * nobody replaced it first. A loser looks again; the record it then finds decides. The loop is
 * bounded: past it, someone else holds the key, which is what `busy` says.
 */
async function decide(
  storage: IdempotencyStorage,
  claim: IdempotencyRecord,
  nowIso: string,
): Promise<Decision> {
  for (let look = 0; look < 3; look++) {
    if (await storage.insert(claim)) return { kind: 'run' };
    const existing = await storage.find(claim.scope, claim.key);
    if (!existing) continue; // released between the two statements: try the insert again
    if (existing.expiresAt > nowIso) {
      if (existing.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
      if (existing.state === 'done' && existing.response) return { kind: 'replay', existing };
      if (existing.lockedUntil > nowIso && !(existing.owner && isGoneHere(existing.owner)))
        return { kind: 'busy' };
      // Locked by a request whose process died (its lock ran out, or its process is gone from
      // this machine): this retry takes the key over. An operation that committed part of its
      // work before the crash recognises the key and answers with its outcome (see
      // `IdempotentRequest`); one that committed nothing simply runs.
    }
    if (await storage.replace(existing, claim)) return { kind: 'run' };
  }
  return { kind: 'busy' };
}

/**
 * `\n?` and the parsed query with sorted keys, or '' when the request has none. Parsed, so the
 * same parameters in another order are the same request.
 */
function queryOf(req: Request): string {
  const query: unknown = req.query;
  if (!query || typeof query !== 'object' || Object.keys(query).length === 0) return '';
  return `\n?${canonicalJson(query)}`;
}

export function idempotency<AuthMap extends Record<string, unknown>>(
  opts: IdempotencyOptions<AuthMap>,
): RouteWrapper<AuthMap> {
  const ttlMs = opts.ttlMs ?? 24 * 60 * 60 * 1000;
  const lockMs = opts.lockMs ?? 60 * 1000;

  const keyed: RouteWrapper<AuthMap> = async ({ route, input }, run) => {
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
    // The query joins the fingerprint when there is one: a paged POST (`…/outcomes?after=…`)
    // reusing its key for the next page must be refused, not answered with the first page again,
    // or a client walking pages would silently stop short. Requests without a query keep the
    // fingerprint they always had, so a retry across an upgrade still replays.
    const query = queryOf(input.req);
    const fingerprint = sha256Hex(
      `${route.method.toUpperCase()} ${path}\n${who.principal}\n${canonicalJson(input.body)}${query}`,
    );
    const now = opts.clock.now();
    const claim: IdempotencyRecord = {
      scope: who.scope,
      key,
      fingerprint,
      state: 'in_flight',
      lockedUntil: new Date(now.getTime() + lockMs).toISOString(),
      expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
      response: null,
      requestId: input.requestId,
      createdAt: now.toISOString(),
      owner: opts.owner,
    };
    const responseFor = (body: unknown): StoredResponse => ({
      status: route.status ?? 200,
      body,
      headers: {},
    });

    /**
     * Runs the handler once. `pending`: the claim the handler's transaction makes (`claimIn`), or
     * null when the wrapper already holds the key. KEY_TAKEN: that claim found a record.
     */
    const runOnce = async (pending: IdempotencyRecord | null): Promise<RouteResult | typeof KEY_TAKEN> => {
      let stored = false;
      const request: IdempotentRequest = {
        scope: who.scope,
        key,
        responseFor,
        answered: () => {
          stored = true;
        },
        claimIn: async (insert) => {
          if (pending && !(await insert(pending))) throw new KeyTaken();
        },
      };
      // Stores an answer the operation did not store itself. Without a pending claim the key is
      // this request's, in flight. With one, the claim may have rolled back with the transaction
      // that raised the error (or never been made): the answer is then inserted as the key's
      // record, unless another request took the key meanwhile, whose record stays.
      const store = async (response: StoredResponse) => {
        if (!pending) return opts.storage.complete(who.scope, key, response);
        if (await opts.storage.insert({ ...pending, state: 'done', response })) return;
        const current = await opts.storage.find(who.scope, key);
        if (current?.requestId === input.requestId) await opts.storage.complete(who.scope, key, response);
      };
      let result: RouteResult;
      running.set(input.req, request);
      try {
        result = await run();
      } catch (err) {
        if (err instanceof KeyTaken) return KEY_TAKEN;
        if (err instanceof AppError && keepsError(err)) {
          await store({
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
          // Conditional on this request id: a claim that rolled back leaves nothing to free, and
          // another request's claim is never freed.
          await opts.storage.release(who.scope, key, input.requestId);
        }
        throw err;
      } finally {
        running.delete(input.req);
      }
      if (!stored) await store(result);
      return result;
    };

    // A route that claims in its own transaction runs first with the claim left to it; only a key
    // that already has a record goes through `decide`.
    if (route.claimsKeyInTransaction) {
      const first = await runOnce(claim);
      if (first !== KEY_TAKEN) return first;
    }
    const decision = await decide(opts.storage, claim, now.toISOString());

    if (decision.kind === 'mismatch') {
      throw new AppError(
        400,
        'INVALID_REQUEST',
        `Keys for idempotent requests can only be used with the same method, path, query, user and body as the first request. This ${IDEMPOTENCY_HEADER} was first used for a different request.`,
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
    const result = await runOnce(null);
    // Holding the key, the handler's `claimIn` does nothing: it cannot find the key taken.
    if (result === KEY_TAKEN) throw new Error('claimIn reported a key this request holds as taken');
    return result;
  };
  // Only POSTs are keyed: any other request goes straight to its handler, without an async step
  // of the wrapper's own (every GET passes here).
  return (ctx, run) => (ctx.route.method === 'post' ? keyed(ctx, run) : run());
}

/** In-memory storage for tests and single-process embedders. */
export function memoryIdempotencyStorage(): IdempotencyStorage & { records: Map<string, IdempotencyRecord> } {
  const records = new Map<string, IdempotencyRecord>();
  const id = (scope: string, key: string) => `${scope}\u0000${key}`;
  return {
    records,
    async find(scope, key) {
      return records.get(id(scope, key));
    },
    async insert(record) {
      if (records.has(id(record.scope, record.key))) return false;
      records.set(id(record.scope, record.key), record);
      return true;
    },
    async replace(previous, record) {
      const current = records.get(id(record.scope, record.key));
      if (current?.requestId !== previous.requestId || current.state !== previous.state) return false;
      records.set(id(record.scope, record.key), record);
      return true;
    },
    async complete(scope, key, response) {
      const record = records.get(id(scope, key));
      if (record?.state === 'in_flight') records.set(id(scope, key), { ...record, state: 'done', response });
    },
    async release(scope, key, requestId) {
      const record = records.get(id(scope, key));
      if (record?.state === 'in_flight' && record.requestId === requestId) records.delete(id(scope, key));
    },
  };
}
