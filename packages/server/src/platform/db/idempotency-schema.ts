/**
 * The table both services keep their idempotency keys in (queries: idempotency-store.ts). Each
 * service's migrations create it, on each engine; the two shapes change together.
 */
export const IDEMPOTENCY_TABLE_SQL = `
  CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
    locked_until TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    response_status INTEGER,
    response_body TEXT,
    response_headers TEXT,
    request_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
`;

/** The PostgreSQL twin of `IDEMPOTENCY_TABLE_SQL`: same columns, key and index. */
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

/**
 * Who claimed each key (`IdempotencyRecord.owner`), added by each service's migration (content
 * 015, commerce 013): a retry after the claimant's process died takes the key over at once.
 */
export const IDEMPOTENCY_OWNER_SQLITE = 'ALTER TABLE idempotency_keys ADD COLUMN owner TEXT;';
export const IDEMPOTENCY_OWNER_POSTGRES = 'ALTER TABLE idempotency_keys ADD COLUMN owner TEXT COLLATE "C";';
