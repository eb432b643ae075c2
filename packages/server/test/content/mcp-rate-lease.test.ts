// Issue 20: the per-key rate limit is reserved in blocks (services/rate-limits.ts), so a busy key
// costs a statement per block, not per call. Over real HTTP, on two instances sharing one
// database and one key: the calls admitted across both never exceed the limit, a lone instance
// admits exactly the limit, and the statements made are counted.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { leaseCap } from '../../src/content/services/rate-limits.js';
import { twoInstancesForFile } from '../helpers/race.js';
import type { TestService } from '../helpers/start.js';
import { makeKey, rawMcp } from './mcp-helpers.js';

const LIMIT = 100;
const BATCH = 20;

/** One batch of list_agents calls; how many were answered and how many refused for the limit. */
async function batch(svc: TestService, key: string): Promise<{ ok: number; limited: number }> {
  const res = await rawMcp(svc, {
    key,
    body: Array.from({ length: BATCH }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'list_agents', arguments: {} },
    })),
  });
  expect(res.status).toBe(200);
  const texts: string[] = res.body.map((r: any) => (r.result.isError ? r.result.content[0].text : 'ok'));
  for (const t of texts) if (t !== 'ok') expect(t).toContain('Error RATE_LIMITED');
  const ok = texts.filter((t) => t === 'ok').length;
  return { ok, limited: texts.length - ok };
}

/** Statements on `svc`'s database (outside transactions) that touch the rate windows, while `fn` runs. */
async function countingWindowStatements<T>(svcs: TestService[], fn: () => Promise<T>) {
  const spies = svcs.map((s) => vi.spyOn(s.handle.db, 'get'));
  try {
    const result = await fn();
    const statements = spies
      .flatMap((s) => s.mock.calls)
      .filter(([sql]) => String(sql).includes('key_rate_windows')).length;
    return { result, statements };
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

const sum = (rs: { ok: number; limited: number }[]) =>
  rs.reduce((a, r) => ({ ok: a.ok + r.ok, limited: a.limited + r.limited }), { ok: 0, limited: 0 });

describe('per-key rate limit, reserved in blocks', () => {
  const two = twoInstancesForFile('content', { config: { keyRateLimit: LIMIT } });
  let key: string;

  /** Moves both instances' clock to one second into the next minute: a fresh window. */
  const nextWindow = () =>
    two.a.clock.set(new Date(Math.ceil(two.a.clock.now().getTime() / 60_000) * 60_000 + 1_000));

  beforeAll(async () => {
    key = (await makeKey(two.a, ['read'])).key;
  });

  it('a lone instance admits exactly the limit, with a statement per block rather than per call', async () => {
    const { a } = two;
    nextWindow();
    const calls = LIMIT + 2 * BATCH;
    const { result, statements } = await countingWindowStatements([a], async () => {
      const rs = [];
      for (let i = 0; i < calls / BATCH; i++) rs.push(await batch(a, key));
      return sum(rs);
    });
    expect(result).toEqual({ ok: LIMIT, limited: calls - LIMIT });
    // Blocks of 1, 2, 4 and then leaseCap(100) = 5 to reach 100 calls (22 reservations), and once
    // the database has granted the whole limit, refusals need no statement (one per call before).
    expect(leaseCap(LIMIT)).toBe(5);
    expect(statements).toBe(22);
  });

  it('two instances calling at once never admit more than the limit between them', async () => {
    const { a, b } = two;
    nextWindow();
    const { result, statements } = await countingWindowStatements([a, b], async () =>
      sum(await Promise.all([a, b, a, b, a, b, a].map((svc) => batch(svc, key)))),
    );
    expect(result.ok + result.limited).toBe(7 * BATCH);
    expect(result.ok).toBeLessThanOrEqual(LIMIT);
    // Each instance can hold back at most a block less one call that it reserved and did not make.
    expect(result.ok).toBeGreaterThanOrEqual(LIMIT - 2 * (leaseCap(LIMIT) - 1));
    expect(statements).toBeLessThan(LIMIT / 2);

    // The next window starts afresh on both.
    nextWindow();
    expect(await batch(b, key)).toEqual({ ok: BATCH, limited: 0 });
    expect(await batch(a, key)).toEqual({ ok: BATCH, limited: 0 });
  });
});
