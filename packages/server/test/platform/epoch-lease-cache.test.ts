// The epoch lease cache's own rules (platform/epoch-lease-cache.ts), with a scripted epoch source
// and a hand-moved monotonic clock: the orderings that real servers hit only by chance (a lookup
// racing a drop, a read that returns after its lease, a heartbeat that fails). The behaviour over
// HTTP on two instances is test/content/mcp-key-cache.test.ts.
import { describe, expect, it } from 'vitest';
import {
  awaitAcknowledged,
  EpochLeaseCache,
  type EpochSource,
} from '../../src/platform/epoch-lease-cache.js';

function setup(opts: { heartbeatFails?: boolean } = {}) {
  let now = 1_000;
  let epoch = 0;
  const acks: number[] = [];
  let pendingRead: ((value: number) => void) | null = null;
  let holdReads = false;
  const source: EpochSource = {
    read: () =>
      holdReads
        ? new Promise<number>((resolve) => {
            pendingRead = resolve;
          })
        : Promise.resolve(epoch),
    acknowledge: async (e) => {
      if (opts.heartbeatFails) throw new Error('heartbeat refused');
      acks.push(e);
    },
  };
  const cache = new EpochLeaseCache<string>(source, {
    leaseMs: 2_000,
    renewEveryMs: 500,
    heartbeatEveryMs: 5_000,
    maxEntries: 3,
    monotonic: () => now,
  });
  return {
    cache,
    acks,
    advance: (ms: number) => {
      now += ms;
    },
    bump: () => {
      epoch++;
    },
    hold: () => {
      holdReads = true;
    },
    answerHeldRead: (value: number) => {
      holdReads = false;
      pendingRead?.(value);
    },
  };
}

describe('EpochLeaseCache', () => {
  it('answers only under a lease, which runs from when the read was sent', async () => {
    const t = setup();
    t.cache.put('k', 'v', t.cache.ticket());
    expect(t.cache.get('k')).toBeUndefined();
    await t.cache.renew();
    expect(t.cache.get('k')).toBeUndefined(); // the first read dropped what predates it
    t.cache.put('k', 'v', t.cache.ticket());
    expect(t.cache.get('k')).toBe('v');
    t.advance(1_999);
    expect(t.cache.get('k')).toBe('v');
    t.advance(1);
    expect(t.cache.get('k')).toBeUndefined();

    // A read that takes 1.5 s vouches for 0.5 s after it returns, not 2 s.
    t.hold();
    const renewing = t.cache.renew();
    t.advance(1_500);
    t.answerHeldRead(0);
    await renewing;
    expect(t.cache.get('k')).toBe('v');
    t.advance(500);
    expect(t.cache.get('k')).toBeUndefined();
  });

  it('drops everything when the epoch moved, and acknowledges only after the drop', async () => {
    const t = setup();
    await t.cache.renew();
    t.cache.put('k', 'v', t.cache.ticket());
    t.bump();
    await t.cache.renew();
    expect(t.cache.get('k')).toBeUndefined();
    // The heartbeat (-1: nothing seen yet) goes first, then each epoch once it has been seen.
    expect(t.acks).toEqual([-1, 0, 1]);
  });

  it('does not cache a lookup that raced a drop', async () => {
    const t = setup();
    await t.cache.renew();
    const ticket = t.cache.ticket(); // the lookup is sent...
    t.bump();
    await t.cache.renew(); // ...a revoke is seen meanwhile...
    t.cache.put('k', 'stale', ticket); // ...and its answer, which may predate the revoke, comes back
    expect(t.cache.get('k')).toBeUndefined();
    t.cache.invalidate();
    const later = t.cache.ticket();
    t.cache.invalidate();
    t.cache.put('k', 'stale', later);
    expect(t.cache.get('k')).toBeUndefined();
  });

  it('grants no lease when the heartbeat cannot be written', async () => {
    const t = setup({ heartbeatFails: true });
    await t.cache.renew();
    t.cache.put('k', 'v', t.cache.ticket());
    expect(t.cache.trusted).toBe(false);
    expect(t.cache.get('k')).toBeUndefined();
  });

  it('a fresh renewal waits for the one in flight and reads again', async () => {
    const t = setup();
    await t.cache.renew();
    t.cache.put('k', 'v', t.cache.ticket());
    t.hold();
    const inFlight = t.cache.renew(); // sent before the change below
    t.bump();
    const fresh = t.cache.renew({ fresh: true });
    t.answerHeldRead(0); // the old read says nothing moved
    await inFlight;
    expect(t.cache.get('k')).toBe('v');
    await fresh; // the fresh one sees the change
    expect(t.cache.get('k')).toBeUndefined();
  });

  it('starts again empty past maxEntries', async () => {
    const t = setup();
    await t.cache.renew();
    for (const k of ['a', 'b', 'c', 'd']) t.cache.put(k, k, t.cache.ticket());
    expect(['a', 'b', 'c', 'd'].map((k) => t.cache.get(k))).toEqual([undefined, undefined, undefined, 'd']);
  });
});

describe('awaitAcknowledged', () => {
  it('returns as soon as nobody lags, and waits out the lease for one who never answers', async () => {
    let now = 0;
    let polls = 0;
    expect(
      await awaitAcknowledged({
        lagging: async () => (++polls < 3 ? ['b'] : []),
        leaseMs: 2_000,
        pollMs: 1,
        monotonic: () => now,
      }),
    ).toEqual([]);
    expect(polls).toBe(3);
    polls = 0;
    const waited = await awaitAcknowledged({
      lagging: async () => {
        polls++;
        now += 500;
        return ['silent'];
      },
      leaseMs: 2_000,
      pollMs: 1,
      monotonic: () => now,
    });
    expect(waited).toEqual(['silent']);
    // Asked until the lease and its margin had passed: 2,250 ms at 500 a poll.
    expect(polls).toBe(5);
  });

  it('waits out the lease when it cannot ask', async () => {
    let now = 0;
    const waited = await awaitAcknowledged({
      lagging: async () => {
        now += 1_000;
        throw new Error('database gone');
      },
      leaseMs: 2_000,
      pollMs: 1,
      monotonic: () => now,
    });
    expect(waited).toEqual(['(could not list the instances)']);
    expect(now).toBeGreaterThanOrEqual(2_250);
  });
});
