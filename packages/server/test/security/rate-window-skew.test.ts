// Outside attack on the MCP per-key rate limit now that it runs on each instance's real clock
// (content/services/rate-limits.ts): two instances on one database whose clocks straddle a minute
// (one a second behind it, one a second past it, as NTP leaves machines apart). A key alternating
// between them must still get no more than the limit: before, each instance's reservation replaced
// the other's window row, resetting its count, so every call was admitted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.js';
import { makeKey } from '../content/mcp-helpers.js';
import { sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { admitted } from './rate-limited.js';

// At 19 or less a minute each reservation is one call, so each call is a statement.
const LIMIT = 5;
const MINUTE_ENDS = Date.UTC(2026, 0, 5, 9, 1, 0);

describe('per-key rate limit on instances whose clocks straddle a minute', () => {
  let behind: TestService;
  let ahead: TestService;

  beforeAll(async () => {
    behind = await startTestService('content', {
      clock: new ManualClock(MINUTE_ENDS - 1_000),
      config: { keyRateLimit: LIMIT },
    });
    ahead = await startTestService('content', {
      dataDir: behind.dataDir,
      clock: new ManualClock(MINUTE_ENDS + 1_000),
      config: { keyRateLimit: LIMIT, ...sameDatabase(behind) },
    });
  });
  afterAll(async () => {
    await ahead?.close();
    await behind?.close();
  });

  it('admits at most the limit to a key alternating between them', async () => {
    const { key } = await makeKey(behind, ['read']);
    let ok = 0;
    for (let i = 0; i < 10; i++) {
      if (await admitted(behind, key)) ok++;
      if (await admitted(ahead, key)) ok++;
    }
    // The newer minute's LIMIT, plus the one call the lagging instance made in the old minute
    // before the other instance opened the new one.
    expect(ok).toBe(LIMIT + 1);

    // The lagging instance's calls counted in the newer minute: once its clock gets there, the
    // key still has nothing left in it.
    behind.clock.set(MINUTE_ENDS + 2_000);
    expect(await admitted(behind, key)).toBe(false);
    expect(await admitted(ahead, key)).toBe(false);
  });
});
