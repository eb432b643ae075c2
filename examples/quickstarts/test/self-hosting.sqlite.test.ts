import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort, runDoc } from './harness.js';

const dataDir = mkdtempSync(join(tmpdir(), 'svc-quickstart-selfhost-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// SQLite only: the doc is the embedded-SQLite deployment (`no other services`, and the `data`
// line it shows); PostgreSQL deployments are docs/operations.md's. The other quick starts run on
// the test engine (harness.ts startServer).
it('docs/quickstarts/self-hosting.md: start, health, /docs, keys, data, stop, as written', async () => {
  const [content, commerce] = [String(await freePort()), String(await freePort())];
  const { ran, stopped } = await runDoc('docs/quickstarts/self-hosting.md', {
    env: { SERVICE_DATA_DIR: dataDir, CONTENT_PORT: content, COMMERCE_PORT: commerce },
    shownAs: { [dataDir]: '/path/to/.data', [`:${content}`]: ':3000', [`:${commerce}`]: ':4000' },
  });
  // Every key printed is a key of its kind.
  expect(ran.find((r) => r.block.code.includes('/v1/merchants'))?.stdout).toBe('200\n');
  const server = stopped[0];
  expect(server?.stdout).toMatch(new RegExp(`^content +http://127\\.0\\.0\\.1:${content} `, 'm'));
  // SIGTERM stopped it cleanly, as step 5 says.
  expect(server?.stderr).toContain('svc-server: SIGTERM received, finishing requests in flight...');
  expect(server?.code).toBe(0);
});
