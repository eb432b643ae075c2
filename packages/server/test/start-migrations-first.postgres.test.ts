// A first start on PostgreSQL sends its migrations before it loads the services' code, so the
// server's DDL (about 120 ms for content's schema) runs beside that load instead of after it
// (docs/benchmarks.md, "Sixteenth pass"). Checked on the built bin, as users start it: a
// preload notes, at the moment each service's migration batch goes out, whether express (which
// only the services' code uses) is loaded yet. Order, not time: it holds on any machine.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { killHard, startBuilt } from './helpers/built-server.js';
import { binFiles, cli } from './helpers/cli.js';
import { api } from './helpers/start.js';

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
});

describe('svc-server start on an empty PostgreSQL database', () => {
  const files = binFiles('.svc-start-migrations-');

  it('sends both services migrations before loading their code, and then serves', async () => {
    const report = join(files.dataDir, 'loaded-at-migrations.jsonl');
    const server = await startBuilt(
      'content',
      files.env({
        NODE_OPTIONS:
          `${process.env.NODE_OPTIONS ?? ''} --require ${join(import.meta.dirname, 'helpers/loaded-at-migrations.cjs')}`.trim(),
        SVC_TEST_LOADED_AT_MIGRATIONS: report,
      }),
      'ignore',
    );
    try {
      expect((await api(server.url, 'GET', '/v1/brands')).status).toBe(200);
      const batches = readFileSync(report, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .sort((a, b) => a.first_table.localeCompare(b.first_table));
      // content's first table is api_keys, commerce's accounts.
      expect(batches).toEqual([
        { first_table: 'accounts', express_loaded: false },
        { first_table: 'api_keys', express_loaded: false },
      ]);
    } finally {
      await killHard(server);
    }
  });
});
