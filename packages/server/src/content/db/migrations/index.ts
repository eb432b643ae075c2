import type { Migration } from '../../../platform/db/sql.js';
import { apiKeysMigration } from './001-api-keys.js';
import { coreMigration } from './002-core.js';
import { mediaMigration } from './003-media.js';
import { idempotencyMigration } from './004-idempotency.js';
import { liveChannelsMigration } from './005-live-channels.js';
import { publishAttemptsMigration } from './006-publish-attempts.js';
import { invariantsMigration } from './007-invariants.js';
import { oauthBrowserBindingMigration } from './008-oauth-browser-binding.js';
import { keyRateLimitsMigration } from './009-key-rate-limits.js';
import { orderingColumnsMigration } from './010-ordering-columns.js';
import { mediaReferencesMigration } from './011-media-references.js';
import { onceAcrossInstancesMigration } from './012-once-across-instances.js';
import { brandTimeZoneMigration } from './013-brand-time-zone.js';
import { processStateMigration } from './014-process-state-in-database.js';
import { idempotencyOwnerMigration } from './015-idempotency-owner.js';
import { mediaTitleMigration } from './016-media-title.js';
import { brandBaselinesMigration } from './017-brand-baselines.js';
import { postsGrowingIndexMigration } from './018-posts-growing-index.js';
import { baselineHistogramsMigration } from './019-baseline-histograms.js';
import { brandPublishedIndexMigration } from './020-brand-published-index.js';
import { keyEpochMigration } from './021-key-epoch.js';
import { keyEpochTruncateMigration } from './022-key-epoch-truncate.js';
import { callLogAscendingIndexesMigration } from './023-call-log-ascending-indexes.js';
import { callLogRecentByIdMigration } from './024-call-log-recent-by-id.js';
import { callLogMarkedByIdMigration } from './025-call-log-marked-by-id.js';

/**
 * Forward-only and numbered. Each area of the content service owns its own migration file;
 * append new ones, never reorder. 003 is the media library's (src/content/media/).
 */
export const contentMigrations: Migration[] = [
  apiKeysMigration,
  coreMigration,
  mediaMigration,
  idempotencyMigration,
  liveChannelsMigration,
  publishAttemptsMigration,
  invariantsMigration,
  oauthBrowserBindingMigration,
  keyRateLimitsMigration,
  orderingColumnsMigration,
  mediaReferencesMigration,
  onceAcrossInstancesMigration,
  brandTimeZoneMigration,
  processStateMigration,
  idempotencyOwnerMigration,
  mediaTitleMigration,
  brandBaselinesMigration,
  postsGrowingIndexMigration,
  baselineHistogramsMigration,
  brandPublishedIndexMigration,
  keyEpochMigration,
  keyEpochTruncateMigration,
  callLogAscendingIndexesMigration,
  callLogRecentByIdMigration,
  callLogMarkedByIdMigration,
];
