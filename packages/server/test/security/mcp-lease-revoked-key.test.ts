// Outside attack on the MCP rate limit's quota leases (content/services/rate-limits.ts): calls an
// instance has reserved for a key live in that instance's memory. A key revoked on one instance
// while the other still holds a block of its calls must be refused on its very next request on
// every instance: the lease is a count of calls, never a credential.
import { describe, expect, it } from 'vitest';
import { listAgentsCall, makeKey, startTwoInstances } from '../content/mcp-helpers.js';
import { api } from '../helpers/start.js';

describe('a revoked key holding a quota lease', () => {
  // 200 a minute: blocks of up to 10 calls, so each instance holds unmade calls after a few.
  const two = startTwoInstances({ keyRateLimit: 200 });

  it('is refused on its next request on both instances, reserved calls or not', async () => {
    const { a, b } = two;
    const { key, id } = await makeKey(a, ['read']);
    // 1 + 2 + 4 reserved on each instance after 4 calls there: 3 left in memory on each.
    for (let i = 0; i < 4; i++) {
      expect((await listAgentsCall(a, key)).status).toBe(200);
      expect((await listAgentsCall(b, key)).status).toBe(200);
    }
    expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    for (const svc of [b, a]) {
      const res = await listAgentsCall(svc, key);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    }
  });
});
