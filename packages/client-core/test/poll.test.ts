import { describe, expect, it } from 'vitest';
import { APIUserAbortError, ApiError, PollTimeoutError, poll } from '../src/index.js';

interface Checkout {
  id: string;
  status: string;
  reads: number;
}

/** A fake clock: sleeping moves time forward instead of waiting. */
function fakeTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

function checkoutReader(statuses: string[]) {
  let reads = 0;
  return async (): Promise<Checkout> => {
    const status = statuses[Math.min(reads, statuses.length - 1)] ?? 'unknown';
    reads++;
    return { id: 'chk_1', status, reads };
  };
}

describe('poll', () => {
  it('polls until the predicate holds, calling onUpdate only when the key changes', async () => {
    const time = fakeTime();
    const updates: string[] = [];
    const result = await poll({
      get: checkoutReader([
        'pending',
        'pending',
        'processing',
        'processing',
        'processing',
        'ready_to_confirm',
      ]),
      until: (c) => c.status === 'ready_to_confirm',
      key: (c) => c.status,
      onUpdate: (c) => {
        updates.push(c.status);
      },
      ...time,
    });
    expect(result).toEqual({ id: 'chk_1', status: 'ready_to_confirm', reads: 6 });
    expect(updates).toEqual(['pending', 'processing', 'ready_to_confirm']);
    // 500 ms growing by 1.5x.
    expect(time.sleeps).toEqual([500, 750, 1125, 1687.5, 2531.25]);
  });

  it('caps the interval at maxIntervalMs', async () => {
    const time = fakeTime();
    await poll({
      get: checkoutReader([...Array(9).fill('pending'), 'done']),
      until: (c) => c.status === 'done',
      ...time,
    });
    expect(Math.max(...time.sleeps)).toBe(5000);
    expect(time.sleeps.at(-1)).toBe(5000);
  });

  it('returns at once when the first read already satisfies the predicate', async () => {
    const time = fakeTime();
    await poll({ get: checkoutReader(['done']), until: (c) => c.status === 'done', ...time });
    expect(time.sleeps).toEqual([]);
  });

  it('times out with PollTimeoutError carrying the last value', async () => {
    const time = fakeTime();
    const error = await poll({
      get: checkoutReader(['pending', 'pending', 'processing']),
      until: (c) => c.status === 'done',
      timeoutMs: 2_000,
      ...time,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PollTimeoutError);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as PollTimeoutError<Checkout>).lastValue).toEqual({
      id: 'chk_1',
      status: 'processing',
      reads: 4,
    });
    // The last sleep is trimmed so the final read happens right at the deadline.
    expect(time.sleeps).toEqual([500, 750, 750]);
  });

  it('uses a custom timeout message', async () => {
    const time = fakeTime();
    await expect(
      poll({
        get: checkoutReader(['pending']),
        until: () => false,
        timeoutMs: 1_000,
        timeoutMessage: (last, ms) => `checkout ${last?.id} still ${last?.status} after ${ms} ms`,
        ...time,
      }),
    ).rejects.toThrow('checkout chk_1 still pending after 1000 ms');
  });

  it('stops with APIUserAbortError when the signal aborts between reads', async () => {
    const time = fakeTime();
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await poll({
      get: checkoutReader(['pending', 'processing', 'done']),
      until: (c) => c.status === 'done',
      key: (c) => c.status,
      onUpdate: (c) => {
        seen.push(c.status);
        if (c.status === 'processing') controller.abort();
      },
      signal: controller.signal,
      ...time,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(seen).toEqual(['pending', 'processing']);
  });

  it('aborts a real sleep between reads', async () => {
    const controller = new AbortController();
    let reads = 0;
    const pending = poll({
      get: async () => ++reads,
      until: () => false,
      intervalMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    expect(reads).toBe(1);
  });

  it('passes the signal to the getter and lets its errors through', async () => {
    const controller = new AbortController();
    let received: AbortSignal | undefined;
    const failure = new Error('getter failed');
    await expect(
      poll({
        get: async (signal) => {
          received = signal;
          throw failure;
        },
        until: () => true,
        signal: controller.signal,
      }),
    ).rejects.toBe(failure);
    expect(received).toBe(controller.signal);
  });
});
