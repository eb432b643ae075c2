/**
 * The PostgreSQL twin of `IDEMPOTENCY_TABLE_SQL` (idempotency-store.ts), which both services'
 * migrations create: same columns, key and index. It lives apart from the store only so the
 * store's file stays with the store work; the two change together.
 */
export const IDEMPOTENCY_TABLE_POSTGRES = `
  CREATE TABLE idempotency_keys (
    scope TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    fingerprint TEXT COLLATE "C" NOT NULL,
    state TEXT COLLATE "C" NOT NULL CHECK (state IN ('in_flight', 'done')),
    locked_until TEXT COLLATE "C" NOT NULL,
    expires_at TEXT COLLATE "C" NOT NULL,
    response_status BIGINT,
    response_body TEXT COLLATE "C",
    response_headers TEXT COLLATE "C",
    request_id TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`;
