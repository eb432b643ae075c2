import type { IdempotencyRecord, IdempotencyStorage, StoredResponse } from '../http/idempotency.js';
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

const fromRow = (r: Row): IdempotencyRecord => ({
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
          body: fromJson(r.response_body),
          headers: fromJson<Record<string, string>>(r.response_headers) ?? {},
        },
  requestId: r.request_id,
  createdAt: r.created_at,
  owner: r.owner ?? null,
});

/**
 * Answers a key over any executor: the database, or the transaction that makes an operation final
 * (see `IdempotentRequest`), so the answer commits or rolls back with the operation. Only a record
 * still `in_flight` takes it: the first answer stored is the one every retry gets.
 */
export function idempotencyAnswers(db: SqlExecutor) {
  return {
    async complete(scope: string, key: string, response: StoredResponse): Promise<void> {
      await db.run(
        `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?, response_headers = ?
          WHERE scope = ? AND key = ? AND state = 'in_flight'`,
        [response.status, toJson(response.body), toJson(response.headers), scope, key],
      );
    },
  };
}

const COLUMNS = `scope, key, fingerprint, state, locked_until, expires_at, response_status, response_body,
  response_headers, request_id, created_at, owner`;
const claimParams = (r: IdempotencyRecord) => [
  r.scope,
  r.key,
  r.fingerprint,
  r.state,
  r.lockedUntil,
  r.expiresAt,
  r.requestId,
  r.createdAt,
  r.owner,
];

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
      return row && fromRow(row);
    },
    // ON CONFLICT DO NOTHING: of claims racing on one key (any number of instances), exactly
    // one inserts; the others wait for it to commit and change nothing.
    async insert(r) {
      const { changes } = await db.run(
        `INSERT INTO idempotency_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?)
         ON CONFLICT (scope, key) DO NOTHING`,
        claimParams(r),
      );
      return changes > 0;
    },
    // Conditional on the record the caller decided on, so of two retries taking over one
    // abandoned key only the first lands (the second finds a new request id).
    async replace(previous, r) {
      const { changes } = await db.run(
        `UPDATE idempotency_keys SET fingerprint = ?, state = ?, locked_until = ?, expires_at = ?,
           response_status = NULL, response_body = NULL, response_headers = NULL, request_id = ?,
           created_at = ?, owner = ?
         WHERE scope = ? AND key = ? AND request_id = ? AND state = ?`,
        [
          r.fingerprint,
          r.state,
          r.lockedUntil,
          r.expiresAt,
          r.requestId,
          r.createdAt,
          r.owner,
          r.scope,
          r.key,
          previous.requestId,
          previous.state,
        ],
      );
      return changes > 0;
    },
    complete: idempotencyAnswers(db).complete,
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
