// Twelfth pass (outside attack on stop 33): kill -9 of the built server while MCP calls write,
// on both engines, then a restart with a second instance beside it on the same database.
// docs/security.md, "Twelfth pass".
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { type BuiltServer, killHard, startBuilt } from '../helpers/built-server.js';
import { binFiles, cli } from '../helpers/cli.js';
import { asService } from '../helpers/skewed-pair.js';
import { api } from '../helpers/start.js';

const ROUNDS = 4;
const CLIENTS = 6;

describe('kill -9 while MCP tool calls write', () => {
  // A dot-folder in the data directory's path, as the house rules ask.
  const files = binFiles('.svc-mcp-kill-');
  const running: BuiltServer[] = [];
  const start = async () => {
    // The per-key rate limit would refuse the flood long before the kill lands.
    const server = await startBuilt('content', files.env({ SERVICE_KEY_RATE_LIMIT: '1000000' }));
    running.push(server);
    return server;
  };
  afterAll(async () => {
    await Promise.all(running.map((s) => killHard(s)));
  });

  /** The ideas stored for `brandId`, by title, with how many rows each title has. */
  async function storedTitles(brandId: string) {
    const db = await openServiceDatabase({
      service: 'content',
      dataDir: files.dataDir,
      databaseUrl: files.env().SERVICE_DATABASE_URL,
      poolSize: 2,
      migrations: contentMigrations,
    });
    try {
      const rows = await db.all<{ title: string; n: number }>(
        'SELECT title, COUNT(*) AS n FROM ideas WHERE brand_id = ? GROUP BY title',
        [brandId],
      );
      const calls = await db.all<{ id: string; tool: string }>('SELECT id, tool FROM mcp_calls');
      return { titles: new Map(rows.map((r) => [r.title, Number(r.n)])), calls };
    } finally {
      await db.close();
    }
  }

  it('every acknowledged create_idea is stored once after a restart, and both instances serve it', async () => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    let a = await start();
    const { key } = await makeKey(asService(a), ['read', 'write']);
    const brand = await api(a.url, 'POST', '/v1/brands', { body: { name: 'Killco' } });
    const acked = new Map<string, string>();
    let cutOff = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let stop = false;
      const server = a;
      const clients = Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; !stop; i++) {
          const title = `r${round}-c${c}-${i}`;
          try {
            const res = await rawMcp(asService(server), {
              key,
              body: {
                jsonrpc: '2.0',
                id: i,
                method: 'tools/call',
                params: { name: 'create_idea', arguments: { brandId: brand.body.id, title } },
              },
            });
            expect(res.status, res.raw).toBe(200);
            expect(res.body.result?.isError, res.raw).toBeFalsy();
            acked.set(title, res.body.result.structuredContent.idea.id);
          } catch (err) {
            if ((err as Error).name === 'AssertionError') throw err;
            cutOff++; // the server died before it answered
            return;
          }
        }
      });
      // Kill once writes are well under way: some calls answered, others in flight.
      const before = acked.size;
      const clientsDone = Promise.all(clients);
      for (let i = 0; acked.size < before + 20 && i < 2_000; i++) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.random() * 50));
      await killHard(a);
      stop = true;
      await clientsDone;

      const [restarted, beside] = await Promise.all([start(), start()]);
      const { titles, calls } = await storedTitles(brand.body.id);
      const missing = [...acked.keys()].filter((t) => !titles.has(t));
      expect(missing, 'acknowledged ideas lost by kill -9').toEqual([]);
      expect(
        [...titles].filter(([, n]) => n !== 1),
        'an idea stored twice',
      ).toEqual([]);
      // The call log loses at most what waited for its next batch; what it holds is whole.
      expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
      for (const c of calls) expect(c.tool).toBeTruthy();
      // Both instances answer on the database the dead one left, each one acknowledged idea.
      const sample = [...acked.values()].slice(-3);
      for (const server of [restarted, beside])
        for (const id of sample) expect((await api(server.url, 'GET', `/v1/ideas/${id}`)).status).toBe(200);
      await killHard(beside);
      a = restarted;
    }
    // The kills landed with calls in flight; otherwise this proves nothing.
    expect(cutOff).toBeGreaterThan(0);
  }, 180_000);
});
