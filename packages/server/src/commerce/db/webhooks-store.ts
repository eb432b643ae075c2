import { fromJson, toJson } from '../../platform/db/json.js';
import type { Dialect, SqlExecutor } from '../../platform/db/sql.js';
import type { CommerceEnv } from './api-keys-store.js';

export interface EndpointRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  url: string;
  secret: string;
  created_at: string;
}

export interface EventRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  type: string;
  data: unknown;
  created_at: string;
}

/**
 * The checkout and order an event is about, kept in columns so the dashboard finds an object's
 * events through an index: a checkout event's payload is the checkout, an order event's the order.
 * Migration 014 fills events written before it by the same rule.
 */
function subjectsOf(e: EventRecord): { checkout_id: string | null; order_id: string | null } {
  const data = (e.data ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  if (e.type.startsWith('checkout.')) return { checkout_id: text(data.id), order_id: text(data.order_id) };
  if (e.type.startsWith('order.')) return { checkout_id: text(data.checkout_id), order_id: text(data.id) };
  return { checkout_id: null, order_id: null };
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface DeliveryRecord {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptRecord {
  delivery_id: string;
  attempt: number;
  started_at: string;
  status_code: number | null;
  error: string | null;
  next_attempt_at: string | null;
}

/** An attempt's outcome as the dispatcher records it, with the claim it was made under. */
export type AttemptOutcomeRecord = AttemptRecord & { status: DeliveryStatus; at: string; owner: string };

/** What the dispatcher needs to send one delivery, in one row. */
export interface DueDelivery {
  id: string;
  endpoint_id: string;
  attempts: number;
  url: string;
  secret: string;
  event_id: string;
  event_type: string;
  /**
   * The event's data as stored: JSON text, written by `insertEvent`. Left encoded on purpose: it
   * goes into the body as it is, and decoding it to encode it again, once for every endpoint,
   * was a share of every delivery's CPU for no change in the bytes sent.
   */
  event_data_json: string;
  event_created_at: string;
}

/** A delivery that is due and that no unexpired claim holds (binds `now` twice). */
const DUE =
  "d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)";

/**
 * PostgreSQL: an endpoint's attempts in flight (anyone's unexpired claims), counted up to its
 * limit (binds the claim's `leaseUntil`, `now` and the limit). No index there holds the lease's
 * columns, so that a lease is a HOT update (migration 017): the count walks
 * `deliveries_pending_due`, where the claimed rows, the oldest due, come first, and stops once
 * the limit is reached, so a dead endpoint's due backlog behind its full slots is not read. A
 * claimed row was due at its claim, so its `next_attempt_at` is at most `leaseUntil` even from an
 * instance whose clock runs up to a lease ahead; that bound keeps later retries out of the walk.
 */
const IN_FLIGHT_PG = `(SELECT COUNT(*) FROM (SELECT 1 FROM deliveries x
     WHERE x.endpoint_id = w.id AND x.status = 'pending' AND x.next_attempt_at <= ?
       AND x.lease_until > ? LIMIT ?) busy)`;

/**
 * SQLite: the same count as column `n` (binds `now`), from `deliveries_pending_leased`, which
 * SQLite keeps (no HOT updates to gain; migration 017 says what dropping it cost).
 */
const IN_FLIGHT_SQLITE = `, (SELECT COUNT(*) FROM deliveries x
     WHERE x.endpoint_id = w.id AND x.status = 'pending' AND x.lease_until > ?) AS n`;

const marks = (xs: readonly unknown[]) => xs.map(() => '?').join(', ');

/**
 * PostgreSQL: the most endpoints one claim locks, whatever its `limit`. Each lock is an entry in
 * the server's shared lock table (64 per connection by default, shared by all: 6,400 on a default
 * server), so a claim never takes one per endpoint of a large deployment. A claim locks at most
 * `limit` endpoints (more would not all get an attempt), and the dispatcher's limit
 * (`MAX_CONCURRENCY`, 512) fits under this one.
 */
export const CLAIM_ENDPOINTS = 512;

/**
 * SQLite refuses a compound SELECT of more than 500 terms (SQLITE_MAX_COMPOUND_SELECT), and the
 * lease statement has one per endpoint that gets room: a claim with more endpoints than that is
 * leased in parts of at most this many. In-process, a part costs no round trip.
 */
const SQLITE_LEASE_PART = 250;

/**
 * PostgreSQL, step 1 (see `claimDue`): of the endpoints `withWork` lists (binds the limit after
 * its own parameters), those this transaction could lock, each with a transaction-scoped advisory
 * lock. Not a row lock (`FOR NO KEY UPDATE`): that wrote every endpoint's row (its `xmax`, a WAL
 * record, a dirty page) on every claim, and shared it with the API's foreign-key `FOR KEY SHARE`
 * on the same rows as a MultiXact. An advisory lock lives only in memory and ends with the
 * transaction. `pg_try_` skips an endpoint another claimer holds instead of waiting; two ids with
 * the same hash only make one of them wait for the next claim. The list is materialized first:
 * in one WHERE, the planner may run the lock before the due check, locking idle endpoints too.
 */
const lockEndpoints = (withWork: string) =>
  `WITH work AS MATERIALIZED (${withWork} LIMIT ?)
   SELECT id FROM work WHERE pg_try_advisory_xact_lock(hashtextextended('svc webhook claim ' || id, 0))
    ORDER BY id`;

/**
 * How many each endpoint may take now: what its limit leaves beside the attempts in flight
 * (anyone's), handed out one at a time across endpoints so `limit` is shared fairly.
 */
function shareRoom(
  endpointIds: readonly string[],
  busy: ReadonlyMap<string, number>,
  perEndpoint: number,
  limit: number,
): [string, number][] {
  const free = endpointIds.map((id) => [id, Math.max(0, perEndpoint - (busy.get(id) ?? 0))] as const);
  const given = new Map<string, number>();
  let left = limit;
  for (let round = 0; left > 0; round++) {
    let any = false;
    for (const [id, n] of free) {
      if (left === 0 || round >= n) continue;
      given.set(id, (given.get(id) ?? 0) + 1);
      left -= 1;
      any = true;
    }
    if (!any) break;
  }
  return [...given];
}

/** Oldest first within each endpoint, endpoints interleaved: no endpoint waits behind another's batch. */
function roundRobin<T extends { endpoint_id: string }>(rows: T[]): T[] {
  const queues = new Map<string, T[]>();
  for (const r of rows) {
    const q = queues.get(r.endpoint_id);
    if (q) q.push(r);
    else queues.set(r.endpoint_id, [r]);
  }
  const out: T[] = [];
  for (let i = 0; out.length < rows.length; i++)
    for (const q of queues.values()) {
      const r = q[i];
      if (r) out.push(r);
    }
  return out;
}

/**
 * The SET of an attempt's outcome: a delivery canceled meanwhile (`status` is its current one)
 * keeps `canceled` and no next attempt; any other takes the outcome's status and next time.
 */
const outcomeSet = (status: string, outcome: { status: string; next: string }) =>
  `status = CASE WHEN ${status} = 'canceled' THEN 'canceled' ELSE ${outcome.status} END,
   next_attempt_at = CASE WHEN ${status} = 'canceled' THEN NULL ELSE ${outcome.next} END`;

const DELIVERY_COLUMNS =
  'd.id, d.event_id, d.endpoint_id, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.updated_at';

/** What a claim leases, once its endpoints are locked (see `claimDue`). */
interface LeaseRequest {
  endpointIds: string[];
  now: string;
  leaseUntil: string;
  owner: string;
  perEndpoint: number;
  limit: number;
  /** `AND d.id IN (…)` when only some deliveries may be claimed, with its parameters. */
  only: string;
  onlyParams: readonly string[];
}

/**
 * SQLite: the lease on the rows of the CTE `picked` (a RETURNING follows). On both engines
 * `picked` is materialized: a subquery with a LIMIT written inside the WHERE may be run again for
 * every row the plan tests against it, and each run may pick different rows (on PostgreSQL, once
 * rows changed meanwhile), so more than the limit would be claimed.
 */
const LEASE_PICKED = `UPDATE deliveries SET lease_until = ?, lease_owner = ?
    WHERE id IN (SELECT id FROM picked)`;
const DUE_COLUMNS = `d.id, d.endpoint_id, d.attempts, w.url, w.secret, e.id AS event_id, e.type AS event_type,
    e.data AS event_data_json, e.created_at AS event_created_at`;
const DUE_JOINS = 'JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id';

export function webhooksStore(db: SqlExecutor) {
  /**
   * Records an attempt's outcome, only while `owner` still holds the delivery's claim (and it is
   * still at attempt `attempt - 1`): a sender whose lease ran out, and whose delivery another
   * instance took over, cannot overwrite or double-count. False when nothing was recorded.
   * A delivery canceled while its attempt was on the wire (its endpoint removed) keeps `canceled`
   * and gets no next attempt: the attempt is recorded, but nothing is sent to a removed endpoint.
   */
  async function recordAttempt(a: AttemptOutcomeRecord): Promise<boolean> {
    const moved = await db.run(
      `UPDATE deliveries SET ${outcomeSet('status', { status: '?', next: '?' })}, attempts = ?,
              lease_until = NULL, lease_owner = NULL,
              last_status = ?, last_error = ?, updated_at = ?
        WHERE id = ? AND lease_owner = ? AND attempts = ?`,
      [
        a.status,
        a.next_attempt_at,
        a.attempt,
        a.status_code,
        a.error,
        a.at,
        a.delivery_id,
        a.owner,
        a.attempt - 1,
      ],
    );
    if (moved.changes === 0) return false;
    await db.run(
      'INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, error, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)',
      [a.delivery_id, a.attempt, a.started_at, a.status_code, a.error, a.next_attempt_at],
    );
    return true;
  }

  /**
   * Inserts many pending deliveries in one statement: an event fans out to every endpoint (up
   * to 16) inside the writer's transaction, and on PostgreSQL a round trip each kept that
   * transaction, and the deliveries' first attempt, waiting.
   */
  async function insertDeliveries(
    rows: readonly { id: string; event_id: string; endpoint_id: string }[],
    at: string,
  ): Promise<void> {
    if (rows.length === 0) return;
    await db.run(
      `INSERT INTO deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES ${rows.map(() => "(?, ?, ?, 'pending', 0, ?, ?, ?)").join(', ')}`,
      rows.flatMap((d) => [d.id, d.event_id, d.endpoint_id, at, at, at]),
    );
  }

  /**
   * PostgreSQL, steps 2 and 3 in one statement (one round trip, one plan): it runs after the
   * endpoints' lock was taken, so its snapshot, counts included, sees every claim committed
   * before the lock. Each endpoint's oldest due rows, up to what its limit leaves, are read in a
   * LATERAL subquery and numbered; taking them by number, then oldest due first, up to `limit` is
   * `shareRoom`'s round robin over the endpoints in the order `claimDue` lists them. The
   * endpoints go as one JSON array, so the text is the same whatever their number (one prepared
   * statement, not one per count).
   *
   * The rows are not locked before their lease (`FOR UPDATE SKIP LOCKED` did, until the twelfth
   * pass): that was a WAL record and a write of the row's header for every delivery, and no other
   * claimer can be taking them, since the endpoint's lock keeps every other claim away. What can
   * still change a picked row meanwhile is an outcome written late (another instance whose lease
   * ran out) or a removal canceling it; the UPDATE then waits for that write and, READ COMMITTED,
   * checks the row again against its own WHERE, which is why the due-and-unleased condition is
   * repeated there: the threat is a delivery already recorded, or canceled, leased and sent again.
   * A late outcome whose writer is itself waiting on this claim's outcomes is a deadlock, which
   * PostgreSQL ends by failing one step: its outcomes are written again after their lease, as
   * after any failed step.
   */
  function leaseOnPostgres(r: LeaseRequest): Promise<DueDelivery[]> {
    return db.all(
      `WITH room AS (
         SELECT w.id AS endpoint_id,
                GREATEST(0, ? - ${IN_FLIGHT_PG}) AS n
           FROM webhook_endpoints w WHERE w.id = ANY (ARRAY(SELECT jsonb_array_elements_text(?::jsonb)))
       ), candidates AS MATERIALIZED (
         SELECT c.id, c.endpoint_id, c.next_attempt_at, c.seq,
                row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.seq) AS turn
           FROM room CROSS JOIN LATERAL (
                  SELECT d.id, d.endpoint_id, d.next_attempt_at, d.seq FROM deliveries d
                   WHERE d.endpoint_id = room.endpoint_id AND ${DUE}${r.only}
                   ORDER BY d.next_attempt_at, d.seq LIMIT room.n) c
       ), picked AS MATERIALIZED (
         SELECT id FROM candidates ORDER BY turn, next_attempt_at, seq LIMIT ?
       ), taken AS (
         UPDATE deliveries d SET lease_until = ?, lease_owner = ?
          WHERE d.id IN (SELECT id FROM picked) AND ${DUE}
         RETURNING id, endpoint_id, event_id, attempts, next_attempt_at, seq)
       SELECT ${DUE_COLUMNS} FROM taken d ${DUE_JOINS} ORDER BY d.next_attempt_at, d.seq`,
      [
        r.perEndpoint,
        r.leaseUntil,
        r.now,
        r.perEndpoint,
        JSON.stringify(r.endpointIds),
        r.now,
        r.now,
        ...r.onlyParams,
        r.limit,
        r.leaseUntil,
        r.owner,
        r.now,
        r.now,
      ],
    );
  }

  /**
   * SQLite, step 3, given step 2's counts (read with the endpoints, `busy`): the counts shared
   * out here, then the leases (its RETURNING cannot read joined tables, so what to send is a
   * statement of its own; in-process, none is a round trip).
   */
  async function leaseOnSqlite(r: LeaseRequest, busy: ReadonlyMap<string, number>): Promise<DueDelivery[]> {
    const room = shareRoom(r.endpointIds, busy, r.perEndpoint, r.limit);
    const taken: { id: string }[] = [];
    for (let at = 0; at < room.length; at += SQLITE_LEASE_PART) {
      taken.push(...(await leasePartOnSqlite(r, room.slice(at, at + SQLITE_LEASE_PART))));
    }
    if (taken.length === 0) return [];
    return db.all(
      `SELECT ${DUE_COLUMNS} FROM deliveries d ${DUE_JOINS}
        WHERE d.id IN (${marks(taken)})
        ORDER BY d.next_attempt_at, d.seq`,
      taken.map((t) => t.id),
    );
  }

  /** SQLite: the leases of one part of a claim's endpoints, `[endpoint, how many]` each. */
  function leasePartOnSqlite(r: LeaseRequest, room: readonly (readonly [string, number])[]) {
    const parts = room.map(
      (_, i) =>
        `SELECT id FROM (SELECT d.id FROM deliveries d
           WHERE d.endpoint_id = ? AND ${DUE}${r.only}
           ORDER BY d.next_attempt_at, d.seq LIMIT ?) e${i}`,
    );
    return db.all<{ id: string }>(
      `WITH picked AS MATERIALIZED (${parts.join(' UNION ALL ')}) ${LEASE_PICKED} RETURNING id`,
      [
        ...room.flatMap(([endpointId, n]) => [endpointId, r.now, r.now, ...r.onlyParams, n]),
        r.leaseUntil,
        r.owner,
      ],
    );
  }

  return {
    recordAttempt,
    insertDeliveries,
    async insertEndpoint(e: EndpointRecord): Promise<void> {
      await db.run(
        'INSERT INTO webhook_endpoints (id, account_id, env, url, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [e.id, e.account_id, e.env, e.url, e.secret, e.created_at],
      );
    },
    listEndpoints(accountId: string, env?: CommerceEnv): Promise<EndpointRecord[]> {
      return env
        ? db.all<EndpointRecord>(
            'SELECT id, account_id, env, url, secret, created_at FROM webhook_endpoints WHERE account_id = ? AND env = ? AND removed_at IS NULL ORDER BY created_at, seq',
            [accountId, env],
          )
        : db.all<EndpointRecord>(
            'SELECT id, account_id, env, url, secret, created_at FROM webhook_endpoints WHERE account_id = ? AND removed_at IS NULL ORDER BY created_at, seq',
            [accountId],
          );
    },
    async countEndpoints(accountId: string, env: CommerceEnv): Promise<number> {
      const row = await db.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = ? AND env = ? AND removed_at IS NULL',
        [accountId, env],
      );
      return row?.n ?? 0;
    },
    getEndpoint(accountId: string, id: string): Promise<EndpointRecord | undefined> {
      return db.get<EndpointRecord>(
        'SELECT id, account_id, env, url, secret, created_at FROM webhook_endpoints WHERE id = ? AND account_id = ? AND removed_at IS NULL',
        [id, accountId],
      );
    },
    async removeEndpoint(id: string, at: string): Promise<void> {
      await db.run('UPDATE webhook_endpoints SET removed_at = ? WHERE id = ?', [at, id]);
      await db.run(
        "UPDATE deliveries SET status = 'canceled', next_attempt_at = NULL, updated_at = ? WHERE endpoint_id = ? AND status = 'pending'",
        [at, id],
      );
    },
    async insertEvent(e: EventRecord): Promise<void> {
      const about = subjectsOf(e);
      await db.run(
        `INSERT INTO events (id, account_id, env, type, data, created_at, checkout_id, order_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [e.id, e.account_id, e.env, e.type, toJson(e.data), e.created_at, about.checkout_id, about.order_id],
      );
    },
    async getEvent(accountId: string, id: string): Promise<EventRecord | undefined> {
      const row = await db.get<EventRecord & { data: string }>(
        'SELECT * FROM events WHERE id = ? AND account_id = ?',
        [id, accountId],
      );
      return row && { ...row, data: fromJson(row.data) };
    },
    insertDelivery(d: { id: string; event_id: string; endpoint_id: string; at: string }): Promise<void> {
      return insertDeliveries([d], d.at);
    },
    /**
     * Claims due deliveries with a lease, so two dispatchers (in one process or on two instances)
     * never send the same attempt at once. Each endpoint gets at most `perEndpoint` attempts in
     * flight counted in the database (every instance's unexpired claims), `limit` in all, shared
     * round-robin across endpoints, oldest first. Run it inside a transaction:
     *
     * 1. PostgreSQL: the endpoints with due work are locked (`lockEndpoints`: an advisory lock per
     *    endpoint until the transaction ends, up to `CLAIM_ENDPOINTS` of them), so two instances
     *    never count and claim for the same endpoint at once; an endpoint another instance is
     *    claiming for is skipped until its next pass. SQLite's writers are serial already
     *    (BEGIN IMMEDIATE).
     * 2. Each endpoint's in-flight count is read after that lock, so it sees every claim committed
     *    before it: the per-endpoint limit holds across instances.
     * 3. One UPDATE takes the leases: the oldest due rows of each endpoint. On PostgreSQL no
     *    other claim can take them (step 1), and a row another write changed since this statement
     *    began (a late outcome, a removal) is checked again against the due-and-unleased
     *    condition in the UPDATE's WHERE (READ COMMITTED's re-check), so a delivery recorded or
     *    canceled meanwhile is never leased. SQLite runs the statement alone; its UPDATE finds
     *    the picked rows by primary key only (repeating the condition there made SQLite walk
     *    every pending delivery).
     *
     * On PostgreSQL steps 2 and 3 are one statement (`leaseOnPostgres`), after step 1's: a claim
     * is two round trips inside its transaction, not three. On SQLite steps 1 and 2 are one
     * statement (no lock to wait for first), then the leases and what to send: three in all.
     */
    async claimDue(
      now: string,
      leaseUntil: string,
      owner: string,
      opts: { limit: number; perEndpoint: number; dialect: Dialect; ids?: readonly string[] },
    ): Promise<DueDelivery[]> {
      if (opts.limit <= 0) return [];
      const ids = opts.ids;
      if (ids && ids.length === 0) return [];
      const only = ids ? ` AND d.id IN (${marks(ids)})` : '';
      const onlyParams = ids ?? [];
      const pg = opts.dialect === 'postgres';
      // SQLite takes no lock here (its writers are serial already), so it reads step 2's counts
      // in the same statement: one count per endpoint from its own index range (an IN list with
      // GROUP BY cost SQLite twenty times as much).
      // PostgreSQL lists at most a limit of endpoints to lock, so it leaves out those whose
      // attempts in flight already fill their limit (a receiver that hangs): listed, they would
      // take the places of endpoints with room and get nothing, and enough of them sorting
      // first would starve every endpoint after them, on every instance. The count is read
      // again after the lock (step 2); this one only keeps full endpoints off the list.
      // Endpoints are listed by their oldest due delivery, not by id: a claim's room (one slot or
      // a few, under load) goes to the work due first, so an endpoint sorting after busy ones
      // waits only behind what was due before its own, never for as long as they have a backlog.
      // Each endpoint's oldest due delivery is read once (materialized), then sorted on.
      const withWork = `WITH listed AS MATERIALIZED (
          SELECT w.id, (SELECT d.next_attempt_at FROM deliveries d
                         WHERE d.endpoint_id = w.id AND ${DUE}${only}
                         ORDER BY d.next_attempt_at LIMIT 1) AS oldest
            FROM webhook_endpoints w WHERE w.removed_at IS NULL)
        SELECT w.id${pg ? '' : IN_FLIGHT_SQLITE} FROM listed w
         WHERE w.oldest IS NOT NULL${pg ? ` AND ${IN_FLIGHT_PG} < ?` : ''}
         ORDER BY w.oldest, w.id`;
      const endpoints = await db.all<{ id: string; n?: number }>(pg ? lockEndpoints(withWork) : withWork, [
        now,
        now,
        ...onlyParams,
        ...(pg
          ? [leaseUntil, now, opts.perEndpoint, opts.perEndpoint, Math.min(opts.limit, CLAIM_ENDPOINTS)]
          : [now]),
      ]);
      if (endpoints.length === 0) return [];
      const claim: LeaseRequest = {
        endpointIds: endpoints.map((e) => e.id),
        now,
        leaseUntil,
        owner,
        perEndpoint: opts.perEndpoint,
        limit: opts.limit,
        only,
        onlyParams,
      };
      const rows = pg
        ? await leaseOnPostgres(claim)
        : await leaseOnSqlite(claim, new Map(endpoints.map((e) => [e.id, Number(e.n)])));
      return roundRobin(rows.map((r) => ({ ...r, attempts: Number(r.attempts) })));
    },
    /**
     * Records many attempts' outcomes at once, each under the same rule as `recordAttempt` (only
     * while its `owner` still holds the claim at attempt `attempt - 1`); true for each one written,
     * in order. On PostgreSQL it is one statement for the whole batch: a round trip for each
     * outcome's UPDATE and INSERT was most of what a delivery cost there. SQLite runs in-process,
     * so one statement each costs no round trip.
     *
     * The ids are also given as `d.id = ANY (ARRAY(…))`, though the join on `o` already names
     * them: the planner guesses 100 rows for any `jsonb_to_recordset`, so with the join alone it
     * hashed the batch and scanned all of `deliveries` (every delivery ever made, finished ones
     * included) for every batch: at 6,000 rows 9.8 ms of a batch of 8, against 1.0 ms by primary
     * key, and growing with the table. An array the planner cannot see into counts as 10
     * elements, so it reads by primary key (the webhook-outcome-plan test; the generic plan, with
     * `plan_cache_mode = force_generic_plan`, reads by primary key too).
     * Not an `IN (?, ?, …)` list: its text changed with the batch's size, and each size was a
     * statement of its own, parsed and planned afresh on every connection and taking a place in
     * the connection's bounded statement cache (webhook-batch-statements test).
     */
    async recordAttempts(outcomes: readonly AttemptOutcomeRecord[], dialect: Dialect): Promise<boolean[]> {
      if (outcomes.length === 0) return [];
      if (dialect !== 'postgres') {
        const results: boolean[] = [];
        for (const o of outcomes) results.push(await recordAttempt(o));
        return results;
      }
      const written = await db.all<{ delivery_id: string }>(
        `WITH o AS (
           SELECT * FROM jsonb_to_recordset(?::jsonb) AS o(delivery_id text, attempt bigint, started_at text,
             status_code bigint, error text, next_attempt_at text, status text, at text, owner text)
         ), moved AS (
           UPDATE deliveries d SET ${outcomeSet('d.status', { status: 'o.status', next: 'o.next_attempt_at' })},
                  attempts = o.attempt,
                  lease_until = NULL, lease_owner = NULL, last_status = o.status_code, last_error = o.error,
                  updated_at = o.at
             FROM o
            WHERE d.id = ANY (ARRAY(SELECT delivery_id FROM o))
              AND d.id = o.delivery_id AND d.lease_owner = o.owner AND d.attempts = o.attempt - 1
           RETURNING d.id
         )
         INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, error, next_attempt_at)
         SELECT o.delivery_id, o.attempt, o.started_at, o.status_code, o.error, o.next_attempt_at
           FROM o JOIN moved ON moved.id = o.delivery_id
         RETURNING delivery_id`,
        [JSON.stringify(outcomes)],
      );
      const done = new Set(written.map((w) => w.delivery_id));
      return outcomes.map((o) => done.has(o.delivery_id));
    },
    listDeliveries(
      accountId: string,
      opts: { endpointId?: string; eventId?: string; eventIds?: string[]; limit: number },
    ) {
      const where = ['w.account_id = ?'];
      const params: (string | number)[] = [accountId];
      if (opts.endpointId) {
        where.push('d.endpoint_id = ?');
        params.push(opts.endpointId);
      }
      if (opts.eventId) {
        where.push('d.event_id = ?');
        params.push(opts.eventId);
      }
      if (opts.eventIds) {
        // An empty list matches nothing (`IN ()` is not SQL).
        where.push(
          opts.eventIds.length ? `d.event_id IN (${opts.eventIds.map(() => '?').join(', ')})` : 'FALSE',
        );
        params.push(...opts.eventIds);
      }
      return db.all<DeliveryRecord & { event_type: string; url: string; env: CommerceEnv }>(
        `SELECT ${DELIVERY_COLUMNS}, e.type AS event_type, w.url, w.env
           FROM deliveries d
           JOIN webhook_endpoints w ON w.id = d.endpoint_id
           JOIN events e ON e.id = d.event_id
          WHERE ${where.join(' AND ')}
          ORDER BY d.created_at DESC, d.seq DESC
          LIMIT ?`,
        [...params, opts.limit],
      );
    },
    async attemptsFor(deliveryIds: string[]): Promise<AttemptRecord[]> {
      if (deliveryIds.length === 0) return [];
      return db.all<AttemptRecord>(
        `SELECT * FROM delivery_attempts WHERE delivery_id IN (${deliveryIds.map(() => '?').join(', ')})
          ORDER BY delivery_id, attempt`,
        deliveryIds,
      );
    },
  };
}
