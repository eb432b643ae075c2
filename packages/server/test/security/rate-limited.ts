import { expect } from 'vitest';
import { rawMcp } from '../content/mcp-helpers.js';
import type { TestService } from '../helpers/start.js';

/** Whether one `list_agents` call by `key` on `svc` was let through by the per-key rate limit. */
export async function admitted(svc: TestService, key: string): Promise<boolean> {
  const res = await rawMcp(svc, {
    key,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
  });
  expect(res.status).toBe(200);
  if (!res.body.result.isError) return true;
  expect(res.body.result.content[0].text).toContain('Error RATE_LIMITED');
  return false;
}
