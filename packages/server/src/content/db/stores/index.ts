import { keyEpochStore } from '../../../platform/db/key-epoch-store.js';
import { leasesStore } from '../../../platform/db/leases-store.js';
import type { SqlExecutor } from '../../../platform/db/sql.js';
import { mediaStore } from '../../media/store.js';
import { contentApiKeysStore } from '../api-keys-store.js';
import { approvalsStore } from './approvals-store.js';
import { automationsStore } from './automations-store.js';
import { brandBaselinesStore } from './brand-baselines-store.js';
import { brandsStore } from './brands-store.js';
import { campaignsStore } from './campaigns-store.js';
import { channelCredentialsStore, oauthStatesStore } from './channel-credentials-store.js';
import { channelsStore } from './channels-store.js';
import { contentEventsStore } from './content-events-store.js';
import { draftsStore } from './drafts-store.js';
import { ideasStore } from './ideas-store.js';
import { mediaReferencesStore } from './media-references-store.js';
import { digestsStore, mcpCallsStore, metaStore, proposalsStore } from './misc-stores.js';
import { postsStore } from './posts-store.js';
import { publishAttemptsStore } from './publish-attempts-store.js';
import { rateLimitsStore } from './rate-limits-store.js';
import { runsStore } from './runs-store.js';
import { signalsStore } from './signals-store.js';

const STORES = {
  apiKeys: contentApiKeysStore,
  approvals: approvalsStore,
  automations: automationsStore,
  brandBaselines: brandBaselinesStore,
  brands: brandsStore,
  campaigns: campaignsStore,
  channelCredentials: channelCredentialsStore,
  channels: channelsStore,
  contentEvents: contentEventsStore,
  digests: digestsStore,
  drafts: draftsStore,
  ideas: ideasStore,
  keyEpoch: keyEpochStore,
  leases: leasesStore,
  mcpCalls: mcpCallsStore,
  media: mediaStore,
  mediaReferences: mediaReferencesStore,
  meta: metaStore,
  oauthStates: oauthStatesStore,
  posts: postsStore,
  proposals: proposalsStore,
  publishAttempts: publishAttemptsStore,
  rateLimits: rateLimitsStore,
  runs: runsStore,
  signals: signalsStore,
} as const;

type StoreName = keyof typeof STORES;

/**
 * Every content store, bound to one executor: the database (`ctx.stores`) or one transaction
 * (the `tx` that `ctx.transaction` hands its callback). Services take this bundle, never a bare
 * executor, so they cannot write SQL and everything a transaction touches goes through it.
 */
export type ContentStores = { readonly [K in StoreName]: ReturnType<(typeof STORES)[K]> };

/** Stores are built on first use: a transaction that touches two of them builds two. */
export function contentStores(db: SqlExecutor): ContentStores {
  const built: Partial<Record<StoreName, unknown>> = {};
  const bundle = {} as ContentStores;
  for (const name of Object.keys(STORES) as StoreName[]) {
    Object.defineProperty(bundle, name, {
      enumerable: true,
      get: () => {
        built[name] ??= STORES[name](db);
        return built[name];
      },
    });
  }
  return bundle;
}
