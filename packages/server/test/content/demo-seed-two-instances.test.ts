// Two `svc-server start` processes with SERVICE_SEED=demo on one fresh database (one SQLite file
// in a dot-folder, or one PostgreSQL database): one demo brand, complete, whatever the timing,
// and a kill -9 of the seeder mid-seed still ends with one complete demo.
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { DEMO_POSTS } from '../../src/content/seed/demo.js';
import { DEMO_BRAND } from '../../src/content/seed/demo-content.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import { type BuiltServer, killHard, launchBuilt, startBuilt } from '../helpers/built-server.js';
import { binFiles, cli } from '../helpers/cli.js';
import { api } from '../helpers/start.js';
import { stopBeforeWrite } from '../helpers/stop-before-write.js';

const SEEDED = { SERVICE_SEED: 'demo' };
/** Each test starts two or three server processes and seeds: a loaded machine took 16 s of the default 20. */
const STARTS_TIMEOUT_MS = 60_000;

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

  it(
    'seeds one complete demo brand, and both instances answer it from their first request',
    async () => {
      const servers = await startTogether(files);
      try {
        const answers = await Promise.all(servers.map((s) => demoOf(s.url)));
        const id = answers[0]?.brands[0]?.id;
        expect(answers).toEqual([oneCompleteDemo(id), oneCompleteDemo(id)]);
      } finally {
        await Promise.all(servers.map(killHard));
      }
    },
    STARTS_TIMEOUT_MS,
  );
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

  it(
    'leaves one complete demo: the survivor repairs it, and the next start keeps it',
    async () => {
      // Migrated here first, so the seed can be watched from its start (the workspace is still empty).
      const db = await watch();
      // The seeder stops itself before its first demo channel: its brand is written and named in
      // the pending marker, the rest is not. Whichever instance seeds, however loaded the machine.
      const stop = stopBeforeWrite(files.dataDir, /INSERT INTO channels\b/);
      const launched = [1, 2].map(() => launchBuilt('content', files.env({ ...SEEDED, ...stop.env })));
      // The seeder never gets to serve: its start ends with its kill, which is no error here.
      const settled = Promise.allSettled(launched.map((l) => l.started));
      let restarted: BuiltServer | undefined;
      try {
        const seeder = await stop.stopped(launched.map((l) => l.child));
        const pending = await db.get<{ value: string }>(
          "SELECT value FROM workspace_meta WHERE key = 'demo_seed_pending'",
        );
        expect(JSON.parse(pending?.value ?? '{}').brand_id).toEqual(expect.any(String));
        expect(await db.get("SELECT value FROM workspace_meta WHERE key = 'demo_seeded'")).toBeUndefined();
        await killHard({ child: seeder });
        const survivor = launched.find((l) => l.child !== seeder);
        if (!survivor) throw new Error('no second instance');

        const after = await demoOf((await survivor.started).url);
        expect(after).toEqual(oneCompleteDemo(after.brands[0]?.id));
        await killHard(survivor);

        restarted = await startBuilt('content', files.env(SEEDED));
        expect(await demoOf(restarted.url)).toEqual(after);
      } finally {
        await Promise.all([...launched, ...(restarted ? [restarted] : [])].map(killHard));
        await settled;
        await db.close();
      }
    },
    STARTS_TIMEOUT_MS,
  );
});
