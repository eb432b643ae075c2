import { expect } from 'vitest';
import { ManualClock } from '../../src/platform/clock.js';
import { twoInstancesForEachTest } from './race.js';
import { api, type TestService } from './start.js';

/**
 * Two content instances on one database and one manual clock, without the demo seed, made before
 * each test of the calling file and closed after it: what a test of post reads across instances
 * needs (a snapshot written on one must show on the other's next read). `publish` posts now on
 * instance a and returns the post's id.
 */
export function contentPair(now = '2026-03-02T08:30:00.000Z') {
  const clock = new ManualClock(new Date(now));
  const instances = twoInstancesForEachTest('content', { clock, config: { seed: 'none' } });
  return {
    get a(): TestService {
      return instances.a;
    },
    get b(): TestService {
      return instances.b;
    },
    async publish(channelId: string, text: string) {
      const res = await api(instances.a.url, 'POST', '/v1/posts', { body: { channel_id: channelId, text } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    },
  };
}
