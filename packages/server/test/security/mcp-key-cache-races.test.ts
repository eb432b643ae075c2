// Ninth pass (outside attack on stop 30): the MCP key cache's guarantee, "once a revoke has
// returned, no instance on the database accepts the key", attacked where a call is in flight on
// another instance while the revoke runs. Two instances over real HTTP on one database (SQLite file
// or PostgreSQL). docs/security.md, "Ninth pass: outside attack on stop 30".
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { SILENT_MS } from '../../src/platform/key-cache.js';
import { ctxOf, listAgentsCall, makeKey, startTwoInstances } from '../content/mcp-helpers.js';
import { holdLookupAfterRead } from '../helpers/hold-lookup.js';
import { heartbeatStamps, heartbeatsSince, monotonicAhead } from '../helpers/monotonic.js';
import { api } from '../helpers/start.js';

describe('MCP key cache: a call in flight while the key is revoked elsewhere', () => {
  const two = startTwoInstances({ seed: 'none' });
  afterEach(() => vi.restoreAllMocks());

  it('a lookup that read the key before the revoke committed does not put it in the cache after', async () => {
    const { a, b } = two;
    // A key never used: its first call also stamps last_used_at (a second write, a second put).
    const { key, id } = await makeKey(a, ['read']);
    await ctxOf(b).keyCache.renew({ fresh: true });
    expect(ctxOf(b).keyCache.trusted).toBe(true);

    // B's lookup reads the row while the key is live, and its answer is held until the revoke on
    // A has returned (a slow network, a busy pool): the answer predates the revoke.
    const { read, release } = holdLookupAfterRead(ctxOf(b).stores.apiKeys);
    const inFlight = listAgentsCall(b, key);
    await read;

    // The revoke returns once B has dropped its cache and acknowledged the new epoch.
    expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    release();
    // The call that was in flight before the revoke returned may finish as it began.
    expect((await inFlight).status).toBe(200);
    vi.restoreAllMocks();

    // From here on, no instance may accept the key: not from a cache the late answer filled.
    for (const svc of [b, a]) {
      const res = await listAgentsCall(svc, key);
      expect(res.status, `${svc === a ? 'A' : 'B'} accepted the revoked key`).toBe(401);
    }
  });

  it("the background pass deletes a crashed instance's row once it has kept its stamp a minute on the sweeper's monotonic clock, and keeps live ones", async () => {
    const { a, b } = two;
    const db = a.handle.db;
    const keyEpoch = ctxOf(a).stores.keyEpoch;
    const live = [ctxOf(a).instanceId, ctxOf(b).instanceId];
    const instances = async () => [...(await heartbeatStamps(db)).keys()].sort();
    const pass = () => (a.handle as ContentHandle).backgroundPass();
    const monotonic = monotonicAhead();
    /** Time passes on the monotonic clock; the live instances beat as they would. */
    const after = async (ms: number) => {
      const before = await heartbeatStamps(db);
      monotonic.advance(ms);
      await heartbeatsSince(db, before, live);
    };
    await vi.waitFor(async () => expect(await instances()).toEqual([...live].sort()), { timeout: 10_000 });
    // kill -9 leaves its row: the process never gets to remove it.
    const crashed = 'elsewhere#1/4242/inst_crashed';
    await keyEpoch.acknowledge(crashed, 0, db.dialect, 7);
    expect(await pass()).toBe(true);
    // Half a minute since A first saw that stamp: kept.
    await after(SILENT_MS / 2);
    expect(await pass()).toBe(true);
    expect(await instances()).toContain(crashed);
    // A minute since A first saw it: deleted. A row first seen now is kept, and so are the live ones.
    await after(SILENT_MS / 2);
    const recent = 'elsewhere#1/4243/inst_recent';
    await keyEpoch.acknowledge(recent, 0, db.dialect, 1);
    expect(await pass()).toBe(true);
    expect(await instances()).toEqual([...live, recent].sort());
    await keyEpoch.forget(recent);
  });
});
