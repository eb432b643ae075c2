import {
  IDEMPOTENCY_TABLE_POSTGRES,
  IDEMPOTENCY_TABLE_SQL,
} from '../../../platform/db/idempotency-schema.js';

import type { Migration } from '../../../platform/db/sql.js';

export const idempotencyAndWebhooks: Migration = {
  id: 4,
  name: 'idempotency keys, webhook endpoints, events outbox and deliveries',
  up: `
    ${IDEMPOTENCY_TABLE_SQL}

    CREATE TABLE webhook_endpoints (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      url TEXT NOT NULL,
      secret TEXT NOT NULL,
      created_at TEXT NOT NULL,
      removed_at TEXT
    );
    CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, env) WHERE removed_at IS NULL;

    CREATE TABLE events (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX events_account ON events (account_id, env, created_at);

    CREATE TABLE deliveries (
      id TEXT PRIMARY KEY,
      event_id TEXT NOT NULL REFERENCES events(id),
      endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id),
      status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at TEXT,
      lease_until TEXT,
      last_status INTEGER,
      last_error TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
    CREATE INDEX deliveries_endpoint ON deliveries (endpoint_id, created_at);
    CREATE INDEX deliveries_event ON deliveries (event_id);

    CREATE TABLE delivery_attempts (
      delivery_id TEXT NOT NULL REFERENCES deliveries(id),
      attempt INTEGER NOT NULL,
      started_at TEXT NOT NULL,
      status_code INTEGER,
      error TEXT,
      next_attempt_at TEXT,
      PRIMARY KEY (delivery_id, attempt)
    );
  `,
  postgres: `
    ${IDEMPOTENCY_TABLE_POSTGRES}

    CREATE TABLE webhook_endpoints (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      url TEXT COLLATE "C" NOT NULL,
      secret TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      removed_at TEXT COLLATE "C"
    );
    CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, env) WHERE removed_at IS NULL;

    CREATE TABLE events (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      type TEXT COLLATE "C" NOT NULL,
      data TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX events_account ON events (account_id, env, created_at);

    CREATE TABLE deliveries (
      id TEXT COLLATE "C" PRIMARY KEY,
      event_id TEXT COLLATE "C" NOT NULL REFERENCES events(id),
      endpoint_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints(id),
      status TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
      attempts BIGINT NOT NULL DEFAULT 0,
      next_attempt_at TEXT COLLATE "C",
      lease_until TEXT COLLATE "C",
      last_status BIGINT,
      last_error TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
    CREATE INDEX deliveries_endpoint ON deliveries (endpoint_id, created_at);
    CREATE INDEX deliveries_event ON deliveries (event_id);

    CREATE TABLE delivery_attempts (
      delivery_id TEXT COLLATE "C" NOT NULL REFERENCES deliveries(id),
      attempt BIGINT NOT NULL,
      started_at TEXT COLLATE "C" NOT NULL,
      status_code BIGINT,
      error TEXT COLLATE "C",
      next_attempt_at TEXT COLLATE "C",
      PRIMARY KEY (delivery_id, attempt)
    );
  `,
};
