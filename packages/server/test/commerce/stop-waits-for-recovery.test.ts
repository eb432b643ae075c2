import { afterEach, describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { openCommerceDatabase } from '../../src/commerce/db/open.js';
import type { Config } from '../../src/config.js';
import { watchClose } from '../helpers/close-watch.js';
import { loggedLines } from '../helpers/logged-lines.js';
import { startTestService } from '../helpers/start.js';
import { makeKey } from './helpers.js';
import { liveUser, offerAndCheckout, ucpStores } from './ucp-helpers.js';

/**
 * Commerce's confirm recovery asks a UCP store what became of a checkout stuck in `confirming`
 * and records the answer: the order the store placed, or a failure. close() closed the database
 * without waiting for a recovery pass in flight, so a store's answer that came after it was never
 * recorded (the order placed, the checkout still `confirming`, until some instance's next recovery
 * asked again). Through the app handle and `listen()`'s stop, which is what `svc-server start`
 * runs on SIGTERM: `stopping()`, the drain, then `close()`.
 */

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});
const log = loggedLines('info');
const store = ucpStores();

describe('a stop during a confirm recovery pass', { timeout: 30_000 }, () => {
  it('waits for the checkout in flight to be recorded, and asks the store about no other', async () => {
    const svc = await startTestService('commerce', {
      config: { storesAllowPrivate: true } as Partial<Config>,
      logger: log.logger,
    });
    closing.push(() => svc.close());
    const liveKey = await makeKey(svc, 'live');
    const { call } = await liveUser({ svc, liveKey });
    const s = await store();
    // Two confirms the store never got: both stuck in `confirming`, for recovery to send again.
    const ids: string[] = [];
    for (const product of ['mug', 'lamp']) {
      const ready = await offerAndCheckout(call, s, product);
      s.script.down = true;
      expect((await call('POST', `/v1/checkouts/${ready.id}/confirm`)).status).toBe(503);
      s.script.down = false;
      ids.push(ready.id);
    }

    // The start-up recovery pass asks the store about the first checkout; the store holds its answer.
    let open!: () => void;
    s.script.holdUntil = new Promise<void>((resolve) => {
      open = resolve;
    });
    const before = s.requests.length;
    (svc.handle as CommerceServiceHandle).startBackground();
    while (s.requests.length === before) await new Promise((r) => setTimeout(r, 10));

    const watch = watchClose(svc.handle.db, log.saying);
    const stopped = svc.stop();
    expect(await watch.reached()).toBe('waiting');
    s.script.holdUntil = null;
    open();
    await stopped;

    const db = await openCommerceDatabase(svc.config);
    closing.push(() => db.close());
    const statuses = await db.all<{ status: string }>(
      `SELECT status FROM checkouts WHERE id IN (?, ?) ORDER BY status`,
      ids,
    );
    // The one in flight is completed with the order the store placed; the other is untouched.
    expect(statuses.map((r) => r.status)).toEqual(['completed', 'confirming']);
    expect(s.orders).toHaveLength(1);
    expect(await db.all("SELECT name FROM leases WHERE name LIKE 'checkout-placement:%'")).toEqual([]);
  });
});
