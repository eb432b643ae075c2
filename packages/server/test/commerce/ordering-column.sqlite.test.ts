import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { webhooksStore } from '../../src/commerce/db/webhooks-store.js';
import { migrateSqlite } from '../../src/platform/db/migrate.js';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';
import { removeTempDataDir, tempDataDir } from '../helpers/start.js';

/**
 * Rows written in the same millisecond list in the order they were inserted. That was `rowid`;
 * `seq` (commerce migration 10) keeps it for the rows written before the migration (backfilled)
 * and after it (filled on insert), with ids that sort the other way.
 */
describe('the ordering column that replaced rowid', () => {
  const dir = tempDataDir('svc-ordering-');
  afterAll(() => removeTempDataDir(dir));

  it('keeps insertion order across the migration', async () => {
    const file = `${dir}/commerce.sqlite`;
    const before = new Database(file);
    migrateSqlite(before, commerceMigrations.slice(0, 9), file, () => {});
    const at = '2026-01-01T00:00:00.000Z';
    const insert = before.prepare(
      "INSERT INTO webhook_endpoints (id, account_id, env, url, secret, created_at) VALUES (?, 'acct', 'sandbox', 'https://example.test/h', 's', ?)",
    );
    insert.run('we_c', at);
    insert.run('we_b', at);
    before.close();

    const db = openSqliteDatabase(file, commerceMigrations, { log: () => {} });
    const store = webhooksStore(db);
    await store.insertEndpoint({
      id: 'we_a',
      account_id: 'acct',
      env: 'sandbox',
      url: 'https://example.test/h',
      secret: 's',
      created_at: at,
    });
    const listed = await store.listEndpoints('acct', 'sandbox');
    db.close();
    expect(listed.map((e) => e.id)).toEqual(['we_c', 'we_b', 'we_a']);
  });
});
