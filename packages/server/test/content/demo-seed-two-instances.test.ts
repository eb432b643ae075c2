// Two `svc-server start` processes with SERVICE_SEED=demo on one fresh database (one SQLite file
// in a dot-folder, or one PostgreSQL database): one demo brand, complete, whatever the timing,
// and a kill -9 of the seeder mid-seed still ends with one complete demo.
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { DEMO_POSTS, SEED_LEASE } from '../../src/content/seed/demo.js';
import { DEMO_BRAND } from '../../src/content/seed/demo-content.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { type BuiltServer, killHard, startBuilt } from '../helpers/built-server.js';
import { binFiles, cli } from '../helpers/cli.js';
import { api } from '../helpers/start.js';

const SEEDED = { SERVICE_SEED: 'demo' };

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
});

/** What one instance answers: its first GET /v1/brands, then the posts of every brand it lists. */
async function demoOf(url: string) {
  const brands = await api(url, 'GET', '/v1/brands');
  expect(brands.status).toBe(200);
  const listed = brands.body.brands.map((b: { id: string; name: string }) => ({ id: b.id, name: b.name }));
  const posts: number[] = [];
  for (const b of listed)
    posts.push((await api(url, 'GET', `/v1/posts?brand_id=${b.id}&limit=100`)).body.posts.length);
  const all = (await api(url, 'GET', '/v1/posts?limit=100')).body.posts.length;
  return { brands: listed, posts, all };
}

const oneCompleteDemo = (id: string) => ({
  brands: [{ id, name: DEMO_BRAND }],
  posts: [DEMO_POSTS],
  all: DEMO_POSTS,
});

/** Starts two built servers on `files`' database at the same moment. */
const startTogether = (files: ReturnType<typeof binFiles>) =>
  Promise.all([startBuilt('content', files.env(SEEDED)), startBuilt('content', files.env(SEEDED))]);

describe('demo seed: two instances starting together', () => {
  const files = binFiles('.svc-seed-pair-');

  it('seeds one complete demo brand, and both instances answer it from their first request', async () => {
    const servers = await startTogether(files);
    try {
      const answers = await Promise.all(servers.map((s) => demoOf(s.url)));
      const id = answers[0]?.brands[0]?.id;
      expect(answers).toEqual([oneCompleteDemo(id), oneCompleteDemo(id)]);
    } finally {
      await Promise.all(servers.map(killHard));
    }
  });
});

describe('demo seed: kill -9 of the seeding instance mid-seed', () => {
  const files = binFiles('.svc-seed-kill-');

  /** The test's own handle on the servers' database, to see where the seed is. */
  const watch = () =>
    openServiceDatabase({
      service: 'content',
      dataDir: files.dataDir,
      databaseUrl: files.env().SERVICE_DATABASE_URL,
      poolSize: 1,
      migrations: contentMigrations,
    });

  /** Waits for the seed's pending marker to name its brand, and returns the seeder's pid. */
  async function midSeed(db: SqlDatabase): Promise<number> {
    for (let i = 0; i < 3000; i++) {
      const done = await db.get("SELECT value FROM workspace_meta WHERE key = 'demo_seeded'");
      if (done)
        throw new Error('the seed finished before it could be caught in the middle; nothing was tested');
      const pending = await db.get<{ value: string }>(
        "SELECT value FROM workspace_meta WHERE key = 'demo_seed_pending'",
      );
      const lease = await db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ?', [SEED_LEASE]);
      if (pending && JSON.parse(pending.value).brand_id && lease) return Number(lease.owner.split('/')[1]);
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error('the seed never started');
  }

  it('leaves one complete demo: the survivor repairs it, and the next start keeps it', async () => {
    // Migrated here first, so the seed can be watched from its start (the workspace is still empty).
    const db = await watch();
    const starting = [startBuilt('content', files.env(SEEDED)), startBuilt('content', files.env(SEEDED))];
    let restarted: BuiltServer | undefined;
    try {
      const pid = await midSeed(db);
      // Held still first, so what it leaves is checked before it can finish; then killed.
      process.kill(pid, 'SIGSTOP');
      expect(await db.get("SELECT value FROM workspace_meta WHERE key = 'demo_seeded'")).toBeUndefined();
      process.kill(pid, 'SIGKILL');
      const survivors = (await Promise.allSettled(starting)).flatMap((r) =>
        r.status === 'fulfilled' && r.value.child.pid !== pid ? [r.value] : [],
      );
      expect(survivors).toHaveLength(1);
      const survivor = survivors[0] as BuiltServer;

      const after = await demoOf(survivor.url);
      expect(after).toEqual(oneCompleteDemo(after.brands[0]?.id));
      await killHard(survivor);

      restarted = await startBuilt('content', files.env(SEEDED));
      expect(await demoOf(restarted.url)).toEqual(after);
    } finally {
      const started = (await Promise.allSettled(starting)).flatMap((r) =>
        r.status === 'fulfilled' ? [r.value] : [],
      );
      await Promise.all([...started, ...(restarted ? [restarted] : [])].map(killHard));
      await db.close();
    }
  });
});
