// Outside attack on the MCP per-key rate window that "only moves forward"
// (content/db/stores/rate-limits-store.ts), on an operator's bad day: an instance's clock runs far
// ahead (a VM booted with a wrong clock before NTP synced, a mistyped `date -s`), a key is used
// there, and the clock is then set right (or the key's calls move to an instance whose clock was
// right all along). The window row holds the future minute, and a forward-only row kept it: every
// later call was added to that future minute's count, so once the limit was used up the key was
// refused in every minute until real time reached the wrong clock's (a day here; for ever for a
// clock set to 2099), while each refusal said "try again in N s" with N under a minute.
// A row more than one window ahead of the caller's is a clock fault, not skew, and is replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.js';
import { makeKey } from '../content/mcp-helpers.js';
import { sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { admitted } from './rate-limited.js';

const LIMIT = 5;
const NOW = Date.UTC(2026, 0, 5, 9, 0, 30);
const DAY = 24 * 60 * 60 * 1000;

async function admittedOf(svc: TestService, key: string, calls: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < calls; i++) if (await admitted(svc, key)) ok++;
  return ok;
}

describe('per-key rate limit after a clock that ran ahead is set right', () => {
  let right: TestService;
  let wrong: TestService;

  beforeAll(async () => {
    right = await startTestService('content', {
      clock: new ManualClock(NOW),
      config: { keyRateLimit: LIMIT },
    });
    wrong = await startTestService('content', {
      dataDir: right.dataDir,
      clock: new ManualClock(NOW + DAY),
      config: { keyRateLimit: LIMIT, ...sameDatabase(right) },
    });
  });
  afterAll(async () => {
    await wrong?.close();
    await right?.close();
  });

  it('one instance: the key gets its limit again in the next real minute', async () => {
    const { key } = await makeKey(right, ['read']);
    const clock = right.clock;
    clock.set(NOW + DAY);
    expect(await admitted(right, key)).toBe(true);
    // NTP steps the clock back a day.
    clock.set(NOW);
    expect(await admittedOf(right, key, LIMIT + 1)).toBe(LIMIT);
    clock.set(NOW + 60_000);
    expect(await admittedOf(right, key, LIMIT + 1)).toBe(LIMIT);
    clock.set(NOW + 60 * 60_000);
    expect(await admittedOf(right, key, LIMIT + 1)).toBe(LIMIT);
  });

  it('two instances: a call on the one a day ahead does not lock the key on the right one', async () => {
    right.clock.set(NOW);
    const { key } = await makeKey(right, ['read']);
    expect(await admitted(wrong, key)).toBe(true);
    expect(await admittedOf(right, key, LIMIT + 1)).toBe(LIMIT);
    right.clock.set(NOW + 60_000);
    expect(await admittedOf(right, key, LIMIT + 1)).toBe(LIMIT);
  });
});
