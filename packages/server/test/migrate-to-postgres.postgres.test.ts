import { cpSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, as, BUYER, makeKey, PROTOCOL, sandboxUser } from './commerce/helpers.js';
import { runCliAsync } from './helpers/cli.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from './helpers/database.js';
import { api, removeTempDataDir, startTestService, tempDataDir } from './helpers/start.js';

/**
 * `svc-server migrate-to-postgres` on the built bin, over a real SQLite deployment: the content
 * service's demo seed and commerce data made through the API (a user, a webhook endpoint, a
 * checkout and its order). Every row of every table must arrive as it was, flags as booleans.
 */
const created: TestPostgresDatabase[] = [];

async function freshDatabase(): Promise<string> {
  const database = await createTestPostgresDatabase();
  created.push(database);
  return database.url;
}
const dirs: string[] = [];
/** Each case spawns the bin (and the set-up starts both services): generous on a loaded machine. */
const SLOW = 180_000;

function runCli(args: string[], env: Record<string, string>) {
  return runCliAsync(args, { ...process.env, LOG_LEVEL: 'silent', ...env });
}

/** A data directory as a deployment leaves it: demo content, and commerce data made over HTTP. */
async function deployment() {
  const dataDir = tempDataDir('svc-mtp-');
  dirs.push(dataDir);
  const content = await startTestService('content', { dataDir, sqlite: true, config: { seed: 'demo' } });
  const brands = await api(content.url, 'GET', '/v1/brands');
  expect(brands.status).toBe(200);
  await content.stop();
  const commerce = await startTestService('commerce', {
    dataDir,
    sqlite: true,
    config: { webhookAllowPrivate: true },
  });
  const key = await makeKey(commerce, 'sandbox');
  const app = as(commerce, key);
  const endpoint = await app('POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
  expect(endpoint.status).toBe(201);
  const { call: user, userToken } = await sandboxUser(commerce, key, { client_user_id: 'user-7' });
  const checkout = await user('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/desk-lamp`, quantity: 2 });
  expect(checkout.status).toBe(201);
  await user('POST', `/v1/checkouts/${checkout.body.id}/update`, { buyer: BUYER, shipping_address: ADDRESS });
  const done = await user('POST', `/v1/checkouts/${checkout.body.id}/confirm`);
  expect(done.body.status).toBe('completed');
  const order = await user('GET', `/v1/orders/${done.body.order_id}`);
  expect(order.status).toBe(200);
  // A revoked key: the key epoch (commerce migration 16) has a row to move across as well.
  const spare = await api(commerce.url, 'POST', '/dashboard/api/api_keys', {
    body: { env: 'live', name: 'Spare' },
  });
  expect((await api(commerce.url, 'POST', `/dashboard/api/api_keys/${spare.body.id}/revoke`)).status).toBe(
    200,
  );
  await commerce.stop();
  return { dataDir, orderId: done.body.order_id, key, userToken, brands: brands.body, order: order.body };
}

/** Every row of every table, each as one comparable line; flags read as 0/1, numbers as text. */
function sqliteRows(file: string): Map<string, string[]> {
  const db = new Database(file, { readonly: true });
  const out = new Map<string, string[]>();
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations'",
    )
    .all() as { name: string }[];
  for (const { name } of tables) {
    const rows = db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[];
    out.set(name, rows.map(line).sort());
  }
  db.close();
  return out;
}

async function postgresRows(client: pg.Client, schema: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const tables = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name != 'schema_migrations'`,
    [schema],
  );
  for (const { table_name: name } of tables.rows) {
    const rows = await client.query(`SELECT * FROM "${schema}"."${name}"`);
    out.set(name, rows.rows.map(line).sort());
  }
  return out;
}

function line(row: Record<string, unknown>): string {
  const cells = Object.keys(row)
    .sort()
    .map((k) => {
      const v = row[k];
      if (v === null) return `${k}=null`;
      if (typeof v === 'boolean') return `${k}=${v ? 1 : 0}`;
      return `${k}=${String(v)}`;
    });
  return cells.join(' | ');
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

let source: Awaited<ReturnType<typeof deployment>>;
beforeAll(async () => {
  source = await deployment();
}, SLOW);
afterAll(async () => {
  await Promise.all(created.map((d) => d.drop()));
  for (const dir of dirs) removeTempDataDir(dir);
});

describe('svc-server migrate-to-postgres', { timeout: SLOW }, () => {
  it('moves every row of both services, flags as booleans, and prints the rows per table', async () => {
    const url = await freshDatabase();
    const run = await runCli(['migrate-to-postgres'], {
      SERVICE_DATA_DIR: source.dataDir,
      SERVICE_DATABASE_URL: url,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^content: content\.sqlite -> schema "content" \(migrations 1-\d+ applied\)$/m,
    );
    expect(run.stdout).toMatch(/^ {2}brands +1 row$/m);
    expect(run.stdout).toMatch(/^ {2}orders +1 row$/m);
    expect(run.stdout).toMatch(/^ {2}webhook_endpoints +1 row$/m);
    expect(run.stdout).toContain('Media files were not copied');

    await withClient(url, async (client) => {
      for (const schema of ['content', 'commerce'] as const) {
        const want = sqliteRows(join(source.dataDir, `${schema}.sqlite`));
        const got = await postgresRows(client, schema);
        expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
        for (const table of want.keys())
          expect(run.stdout).toMatch(new RegExp(`^ {2}${table} +\\d+ rows?$`, 'm'));
        for (const [table, rows] of want) expect(got.get(table), `${schema}.${table}`).toEqual(rows);
      }
      // The demo seed and the API's data are there, not only empty tables matching empty tables.
      const counts = await client.query<{ posts: string; runs: string }>(
        'SELECT (SELECT count(*) FROM content.posts) AS posts, (SELECT count(*) FROM content.agent_runs) AS runs',
      );
      expect(Number(counts.rows[0]?.posts)).toBeGreaterThan(10);
      const order = await client.query('SELECT status, total_amount FROM commerce.orders WHERE id = $1', [
        source.orderId,
      ]);
      expect(order.rows).toEqual([{ status: 'placed', total_amount: expect.any(String) }]);
      const flags = await client.query(
        'SELECT requires_user_confirmation FROM commerce.checkouts UNION ALL SELECT sandbox FROM commerce.catalog_merchants',
      );
      expect(flags.rows.every((r) => typeof Object.values(r)[0] === 'boolean')).toBe(true);
      // The copied keys did not move the epoch on the way (no INSERT trigger): it is SQLite's.
      const epoch = await client.query('SELECT epoch FROM commerce.key_epoch');
      expect(epoch.rows.map((r) => Number(r.epoch))).toEqual([1]);
    });

    // The services started on PostgreSQL answer with the same data, and the key made on SQLite works.
    const content = await startTestService('content', {
      dataDir: source.dataDir,
      config: { databaseUrl: url },
    });
    const commerce = await startTestService('commerce', {
      dataDir: source.dataDir,
      config: { databaseUrl: url },
    });
    try {
      expect((await api(content.url, 'GET', '/v1/brands')).body).toEqual(source.brands);
      const order = await as(commerce, source.key, source.userToken)('GET', `/v1/orders/${source.orderId}`);
      expect(order.status).toBe(200);
      expect(order.body).toEqual(source.order);
    } finally {
      await content.stop();
      await commerce.stop();
    }

    // A second run finds the rows it wrote and refuses, changing nothing.
    const again = await runCli(['migrate-to-postgres'], {
      SERVICE_DATA_DIR: source.dataDir,
      SERVICE_DATABASE_URL: url,
    });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /the target database already holds rows \(content\.api_keys|content\.brands/,
    );
    await withClient(url, async (client) => {
      const n = await client.query<{ n: string }>('SELECT count(*) AS n FROM content.brands');
      expect(n.rows[0]?.n).toBe('1');
    });
  });

  it('refuses a SQLite file at another schema version than this svc-server, writing nothing', async () => {
    const older = tempDataDir('svc-mtp-old-');
    dirs.push(older);
    cpSync(source.dataDir, older, { recursive: true });
    const db = new Database(join(older, 'commerce.sqlite'));
    const last = (db.prepare('SELECT MAX(id) AS id FROM schema_migrations').get() as { id: number }).id;
    db.prepare('DELETE FROM schema_migrations WHERE id = ?').run(last);
    db.close();
    const url = await freshDatabase();
    const run = await runCli(['migrate-to-postgres'], { SERVICE_DATA_DIR: older, SERVICE_DATABASE_URL: url });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`commerce.sqlite is at schema ${last - 1}; this svc-server is at ${last}.`);
    await withClient(url, async (client) => {
      const schemas = await client.query(
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('content', 'commerce')",
      );
      expect(schemas.rows).toEqual([]);
    });
  });

  it('explains itself with --help, and asks for SERVICE_DATABASE_URL', async () => {
    const help = await runCli(['migrate-to-postgres', '--help'], {});
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Media files are not');
    const missing = await runCli(['migrate-to-postgres'], {
      SERVICE_DATA_DIR: source.dataDir,
      SERVICE_DATABASE_URL: '',
    });
    expect(missing.status).toBe(64);
    expect(missing.stderr).toContain('migrate-to-postgres needs SERVICE_DATABASE_URL=postgres://');
  });
});
