import type { IdempotencyRecord, IdempotencyStorage, StoredResponse } from '../http/idempotency.js';
import { readKeptJson } from '../sliced/kept-json.js';
import { fromJson, toJson } from './json.js';
import type { SqlDatabase, SqlExecutor } from './sql.js';

type Row = {
  owner: string | null;
  scope: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  locked_until: string;
  expires_at: string;
  response_status: number | null;
  response_body: string | null;
  response_headers: string | null;
  request_id: string;
  created_at: string;
};

/**
 * A kept answer may be an offer of every variant of a 3 MiB page (4.5 MB of JSON): it is decoded
 * in slices, and a replay answers with the stored text itself (sliced/kept-json.ts).
 */
const fromRow = async (r: Row): Promise<IdempotencyRecord> => ({
  scope: r.scope,
  key: r.key,
  fingerprint: r.fingerprint,
  state: r.state,
  lockedUntil: r.locked_until,
  expiresAt: r.expires_at,
  response:
    r.response_status === null
      ? null
      : {
          status: r.response_status,
          body: r.response_body === null ? null : await readKeptJson(r.response_body),
          headers: fromJson<Record<string, string>>(r.response_headers) ?? {},
        },
  requestId: r.request_id,
  createdAt: r.created_at,
  owner: r.owner ?? null,
});

/**
 * A key's writes over any executor: the database, or the transaction of the operation itself (see
 * `IdempotentRequest`), so they commit or roll back with the operation.
 * - `insert` claims the key inside the operation's first transaction (`claimIn`): one statement
 *   and one commit fewer than a claim of its own before the work.
 * - `complete` answers it in the transaction that makes the operation final. Only a record still
 *   `in_flight` takes it: the first answer stored is the one every retry gets.
 */
export function idempotencyWrites(db: SqlExecutor) {
  return {
    // ON CONFLICT DO NOTHING: of claims racing on one key (any number of instances), exactly
    // one inserts; the others wait for it to commit and change nothing.
    async insert(r: IdempotencyRecord): Promise<boolean> {
      const { changes } = await db.run(INSERT_CLAIM, [
        r.scope,
        r.key,
        ...claimValues(r),
        ...responseValues(r),
      ]);
      return changes > 0;
    },
    async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
      await db.run(
        `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?, response_headers = ?
          WHERE scope = ? AND key = ? AND state = 'in_flight'`,
        [response.status, toJson(response.body), toJson(response.headers), scope, key],
      );
    },
  };
}

/**
 * What a claim writes besides its key, column by column: the insert lists them in this order and
 * a takeover (`replace`) sets them in the same order, so the two cannot drift apart. A claim has no
 * response yet; the insert leaves those columns NULL and a takeover clears them.
 */
const CLAIM_FIELDS = [
  ['fingerprint', (r) => r.fingerprint],
  ['state', (r) => r.state],
  ['locked_until', (r) => r.lockedUntil],
  ['expires_at', (r) => r.expiresAt],
  ['request_id', (r) => r.requestId],
  ['created_at', (r) => r.createdAt],
  ['owner', (r) => r.owner],
] as const satisfies readonly (readonly [string, (r: IdempotencyRecord) => string | null])[];
const claimValues = (r: IdempotencyRecord) => CLAIM_FIELDS.map(([, value]) => value(r));

/**
 * A record inserted with its answer (`state = 'done'`): an error kept for a key whose claim rolled
 * back with the transaction that raised it (see `claimIn`). A claim's are NULL.
 */
const responseValues = ({ response: r }: IdempotencyRecord) =>
  r ? [r.status, toJson(r.body), toJson(r.headers)] : [null, null, null];

const INSERT_CLAIM = `INSERT INTO idempotency_keys (scope, key, ${CLAIM_FIELDS.map(([c]) => c).join(', ')},
    response_status, response_body, response_headers)
  VALUES (?, ?, ${CLAIM_FIELDS.map(() => '?').join(', ')}, ?, ?, ?)
  ON CONFLICT (scope, key) DO NOTHING`;
const REPLACE_CLAIM = `UPDATE idempotency_keys SET ${CLAIM_FIELDS.map(([c]) => `${c} = ?`).join(', ')},
    response_status = NULL, response_body = NULL, response_headers = NULL
  WHERE scope = ? AND key = ? AND request_id = ? AND state = ?`;

/** A service's `idempotency_keys` table behind the generic idempotency engine. */
export function idempotencyStorage(
  db: SqlDatabase,
): IdempotencyStorage & { purge(before: string): Promise<number> } {
  return {
    async find(scope, key) {
      const row = await db.get<Row>('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?', [
        scope,
        key,
      ]);
      return row && (await fromRow(row));
    },
    insert: idempotencyWrites(db).insert,
    // Conditional on the record the caller decided on, so of two retries taking over one
    // abandoned key only the first lands (the second finds a new request id).
    async replace(previous, r) {
      const { changes } = await db.run(REPLACE_CLAIM, [
        ...claimValues(r),
        r.scope,
        r.key,
        previous.requestId,
        previous.state,
      ]);
      return changes > 0;
    },
    complete: idempotencyWrites(db).complete,
    async release(scope: string, key: string, requestId: string) {
      await db.run(
        "DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'in_flight' AND request_id = ?",
        [scope, key, requestId],
      );
    },
    async purge(before: string) {
      const { changes } = await db.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', [before]);
      return changes;
    },
  };
}
