import { afterEach, expect, vi } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import type { Logger } from '../../src/platform/logger.js';
import { runCliAsync } from '../helpers/cli.js';
import { countReads } from '../helpers/count-reads.js';
import { loggedLines } from '../helpers/logged-lines.js';
import { twoInstancesForFile } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';
import { as } from './helpers.js';

/**
 * Two commerce instances on one database (one SQLite file, or one PostgreSQL schema) and one
 * clock, as several `svc-server start` processes on it, for the calling file's tests: what the
 * commerce key-cache tests run against. Read `a` and `b` inside a test.
 */
export const twoCommerce = (opts: { logger?: Logger } = {}) => twoInstancesForFile('commerce', opts);

/**
 * twoCommerce, logging warnings where the test reads them: `waitedOut()` is the revokes that
 * waited out an instance that did not acknowledge. Mocks are restored after each test.
 */
export function twoCommerceWatchingRevokes() {
  const warnings = loggedLines('warn');
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return {
    two: twoCommerce({ logger: warnings.logger }),
    waitedOut: () => warnings.saying('did not acknowledge'),
  };
}

/** `svc-server keys revoke --json` in a process of its own, on `svc`'s database. */
export function cliRevoke(svc: TestService, id: string) {
  return runCliAsync(['keys', 'revoke', id, '--service', 'commerce', '--json'], {
    ...process.env,
    SERVICE_DATA_DIR: svc.dataDir,
    ...(svc.config.databaseUrl ? { SERVICE_DATABASE_URL: svc.config.databaseUrl } : {}),
  });
}

export const handleOf = (svc: TestService) => svc.handle as CommerceServiceHandle;
export const keyCacheOf = (svc: TestService) => handleOf(svc).keyCache;
export const keyEpochOf = (svc: TestService) => commerceStores(svc.handle.db).keyEpoch;

/** A key made through the dashboard's JSON API (loopback): its id and secret. */
export async function dashboardKey(svc: TestService, env: 'sandbox' | 'live' = 'sandbox') {
  const made = await api(svc.url, 'POST', '/dashboard/api/api_keys', { body: { env, name: 'Cached' } });
  expect(made.status).toBe(201);
  return { id: made.body.id as string, key: made.body.key as string };
}

export const revokeOnDashboard = (svc: TestService, id: string) =>
  api(svc.url, 'POST', `/dashboard/api/api_keys/${id}/revoke`);

/** The cheapest keyed request: the merchant list. */
export const merchants = (svc: TestService, key: string) => as(svc, key)('GET', '/v1/merchants');

/** A fresh lease, then a few requests that succeed: the key is in the instance's cache after. */
export async function warm(svc: TestService, key: string) {
  await keyCacheOf(svc).renew({ fresh: true });
  for (let i = 0; i < 3; i++) expect((await merchants(svc, key)).status).toBe(200);
}

/** The documented refusal of an unusable key (docs/commerce): 401 INVALID_API_KEY with a challenge. */
export async function expectRefused(svc: TestService, key: string, label = '') {
  const res = await merchants(svc, key);
  expect(res.status, `${label} accepted the key: ${JSON.stringify(res.body)}`).toBe(401);
  expect(res.body.error.code).toBe('INVALID_API_KEY');
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
}

/** Statements on `svc`'s database that read the key table while `fn` runs. */
export async function keyLookups(svc: TestService, fn: () => Promise<unknown>) {
  const made = await countReads(svc.handle.db).during(fn);
  return made.sql.filter((s) => s.includes('FROM api_keys')).length;
}
