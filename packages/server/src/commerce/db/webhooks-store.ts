import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sqlite.js';
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

/** What the dispatcher needs to send one delivery, in one row. */
export interface DueDelivery {
  id: string;
  endpoint_id: string;
  attempts: number;
  url: string;
  secret: string;
  event_id: string;
  event_type: string;
  event_data: unknown;
  event_created_at: string;
}

const DELIVERY_COLUMNS =
  'd.id, d.event_id, d.endpoint_id, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.updated_at';

export function webhooksStore(db: SqlExecutor) {
  return {
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
      await db.run(
        'INSERT INTO events (id, account_id, env, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [e.id, e.account_id, e.env, e.type, toJson(e.data), e.created_at],
      );
    },
    async getEvent(accountId: string, id: string): Promise<EventRecord | undefined> {
      const row = await db.get<EventRecord & { data: string }>(
        'SELECT * FROM events WHERE id = ? AND account_id = ?',
        [id, accountId],
      );
      return row && { ...row, data: fromJson(row.data) };
    },
    async insertDelivery(d: {
      id: string;
      event_id: string;
      endpoint_id: string;
      at: string;
    }): Promise<void> {
      await db.run(
        `INSERT INTO deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)`,
        [d.id, d.event_id, d.endpoint_id, d.at, d.at, d.at],
      );
    },
    /**
     * Claims due deliveries with a lease, so two dispatch loops never send the same attempt.
     * At most `perEndpoint - busy[endpoint]` per endpoint (what that endpoint may still take on
     * beside what is in flight) and `limit` in all, taken round-robin across endpoints, oldest first.
     */
    async claimDue(
      now: string,
      leaseUntil: string,
      owner: string,
      opts: { limit: number; perEndpoint: number; busy?: ReadonlyMap<string, number>; ids?: string[] },
    ): Promise<DueDelivery[]> {
      if (opts.limit <= 0) return [];
      const { ids } = opts;
      const only = ids ? ` AND d.id IN (${ids.map(() => '?').join(', ')})` : '';
      const rows = await db.all<DueDelivery & { event_data: string; rn: number; due_at: string }>(
        `SELECT * FROM (
           SELECT d.id, d.endpoint_id, d.attempts, w.url, w.secret, e.id AS event_id, e.type AS event_type,
                  e.data AS event_data, e.created_at AS event_created_at, d.next_attempt_at AS due_at,
                  ROW_NUMBER() OVER (PARTITION BY d.endpoint_id ORDER BY d.next_attempt_at, d.seq) AS rn
             FROM deliveries d
             JOIN webhook_endpoints w ON w.id = d.endpoint_id
             JOIN events e ON e.id = d.event_id
            WHERE d.status = 'pending' AND d.next_attempt_at <= ?
              AND (d.lease_until IS NULL OR d.lease_until <= ?)${only}) due
          WHERE rn <= ?
          ORDER BY rn, due_at, endpoint_id`,
        [now, now, ...(ids ?? []), opts.perEndpoint],
      );
      const claimed: DueDelivery[] = [];
      for (const { rn, due_at: _due, ...r } of rows) {
        if (claimed.length >= opts.limit) break;
        if (rn > opts.perEndpoint - (opts.busy?.get(r.endpoint_id) ?? 0)) continue;
        // The claim is one conditional statement: it takes the lease only if the delivery is still
        // pending, due and unleased now, so two dispatchers that both selected it cannot both send it.
        // PostgreSQL: the SELECT above is where `FOR UPDATE SKIP LOCKED` belongs once the engine
        // lands (h-pgcore); this conditional UPDATE stays the claim on both engines.
        const took = await db.run(
          `UPDATE deliveries SET lease_until = ?, lease_owner = ?
            WHERE id = ? AND status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)`,
          [leaseUntil, owner, r.id, now, now],
        );
        if (took.changes === 0) continue;
        claimed.push({ ...r, event_data: fromJson(r.event_data) });
      }
      return claimed;
    },
    /**
     * Records an attempt's outcome, only while `owner` still holds the delivery's claim (and it is
     * still at attempt `attempt - 1`): a sender whose lease ran out, and whose delivery another
     * instance took over, cannot overwrite or double-count. False when nothing was recorded.
     */
    async recordAttempt(
      a: AttemptRecord & { status: DeliveryStatus; at: string; owner: string },
    ): Promise<boolean> {
      const moved = await db.run(
        `UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, lease_until = NULL, lease_owner = NULL,
                last_status = ?, last_error = ?, updated_at = ?
          WHERE id = ? AND lease_owner = ? AND attempts = ?`,
        [
          a.status,
          a.attempt,
          a.next_attempt_at,
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
