import type { Migration } from '../../platform/db/sql.js';
import { usersAndApprovals } from './migrations/002-users-and-approvals.js';
import { commerceObjects } from './migrations/003-commerce-objects.js';
import { idempotencyAndWebhooks } from './migrations/004-idempotency-and-webhooks.js';
import { confirmRecovery } from './migrations/005-confirm-recovery.js';
import { storeSessions } from './migrations/006-store-sessions.js';
import { checkoutVersions } from './migrations/007-checkout-versions.js';
import { passkeys } from './migrations/008-passkeys.js';
import { confirmLinksHashed } from './migrations/009-confirm-links-hashed.js';
import { orderingColumns } from './migrations/010-ordering-columns.js';
import { onceAcrossInstances } from './migrations/011-once-across-instances.js';
import { deliveryClaimIndexes } from './migrations/012-delivery-claim-indexes.js';
import { idempotencyOwner } from './migrations/013-idempotency-owner.js';
import { eventSubjects } from './migrations/014-event-subjects.js';
import { dropDeliveriesDue } from './migrations/015-drop-deliveries-due.js';
import { keyEpoch } from './migrations/016-key-epoch.js';
import { hotDeliveryLeases } from './migrations/017-hot-delivery-leases.js';

export const commerceMigrations: Migration[] = [
  {
    id: 1,
    name: 'accounts and api keys',
    up: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        env TEXT NOT NULL CHECK (env IN ('sandbox', 'live')),
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      );
    `,
    postgres: `
      CREATE TABLE accounts (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT COLLATE "C" NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
        env TEXT COLLATE "C" NOT NULL CHECK (env IN ('sandbox', 'live')),
        name TEXT COLLATE "C" NOT NULL,
        prefix TEXT COLLATE "C" NOT NULL,
        key_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        created_at TEXT COLLATE "C" NOT NULL,
        last_used_at TEXT COLLATE "C",
        revoked_at TEXT COLLATE "C"
      );
    `,
  },
  usersAndApprovals,
  commerceObjects,
  idempotencyAndWebhooks,
  confirmRecovery,
  storeSessions,
  checkoutVersions,
  passkeys,
  confirmLinksHashed,
  orderingColumns,
  onceAcrossInstances,
  deliveryClaimIndexes,
  idempotencyOwner,
  eventSubjects,
  dropDeliveriesDue,
  keyEpoch,
  hotDeliveryLeases,
];
