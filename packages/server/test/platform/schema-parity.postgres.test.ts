import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { migrateSqlite as migrate, migratePostgres } from '../../src/platform/db/migrate.js';
import type { Migration } from '../../src/platform/db/sql.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../helpers/database.js';
import { postgresBooleanColumns, postgresShape, shapeDiff, sqliteShape } from '../helpers/schema-shape.js';

/**
 * Each migration carries a SQLite step and a PostgreSQL step under the same number. After all of
 * them, both engines must hold the same schema: tables, columns (order, type family, nullability,
 * default), primary keys, unique constraints, indexes (name, columns and direction, unique,
 * partial), foreign keys with their ON DELETE, and the number of CHECKs per table.
 */
const services = [
  { schema: 'content', migrations: contentMigrations, onPurpose: [] },
  {
    schema: 'commerce',
    migrations: commerceMigrations,
    // Differences a migration makes on purpose, each line exactly as the diff prints it, with
    // the migration that says why. Anything else that differs still fails.
    onPurpose: [
      // Migration 017: dropped on PostgreSQL so a webhook lease is a HOT update; SQLite has no HOT
      // updates and its in-flight count reads this index.
      '- sqlite:   deliveries: index deliveries_pending_leased (endpoint_id, lease_until) partial',
    ],
  },
] as const;

const created: TestPostgresDatabase[] = [];

/** A fresh database holding one service's schema after every PostgreSQL step, applied by the server's runner. */
async function migratedPostgres(schema: string, migrations: readonly Migration[]): Promise<pg.Client> {
  const database = await createTestPostgresDatabase();
  created.push(database);
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    await migratePostgres(pool, schema, migrations);
  } finally {
    await pool.end();
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return client;
}

function migratedSqlite(migrations: readonly Migration[]): Database.Database {
  const db = new Database(':memory:');
  migrate(db, migrations, 'parity', () => undefined);
  return db;
}

/** Runs `fn` on a migrated PostgreSQL database, closing the connection whatever happens. */
async function withPostgres<T>(
  schema: string,
  migrations: readonly Migration[],
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = await migratedPostgres(schema, migrations);
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function diffOf(schema: string, migrations: readonly Migration[]): Promise<string[]> {
  const sqlite = migratedSqlite(migrations);
  try {
    const postgres = await withPostgres(schema, migrations, (client) => postgresShape(client, schema));
    return shapeDiff(sqliteShape(sqlite), postgres);
  } finally {
    sqlite.close();
  }
}

afterAll(() => Promise.all(created.map((d) => d.drop())));

/** Each service's PostgreSQL schema, migrated once and read for both tests below. */
const postgresOf = new Map<string, Promise<{ shape: string[]; flags: string[] }>>();
function postgresSchema(schema: string, migrations: readonly Migration[]) {
  let found = postgresOf.get(schema);
  if (!found) {
    found = withPostgres(schema, migrations, async (client) => ({
      shape: await postgresShape(client, schema),
      flags: await postgresBooleanColumns(client, schema),
    }));
    postgresOf.set(schema, found);
  }
  return found;
}

describe('schema parity: SQLite and PostgreSQL after every migration', () => {
  for (const { schema, migrations, onPurpose } of services) {
    it(`${schema}: both engines hold the same schema`, async () => {
      const sqlite = migratedSqlite(migrations);
      const diff = shapeDiff(sqliteShape(sqlite), (await postgresSchema(schema, migrations)).shape);
      sqlite.close();
      // Each difference made on purpose must still be there: a later migration that evens it
      // out takes its line off the list.
      expect(diff, `the ${schema} schemas differ:\n${diff.join('\n')}`).toEqual([...onPurpose]);
    });
  }

  it('the flags are BOOLEAN on PostgreSQL, and only they', async () => {
    const flags: string[] = [];
    for (const { schema, migrations } of services) {
      flags.push(...(await postgresSchema(schema, migrations)).flags.map((c) => `${schema}.${c}`));
    }
    expect(flags.sort()).toEqual([
      'commerce.catalog_merchants.requires_connection',
      'commerce.catalog_merchants.sandbox',
      'commerce.checkouts.requires_user_confirmation',
      'content.automations.enabled',
      'content.mcp_calls.id_sorts_by_time',
    ]);
  });

  it('names what differs when a PostgreSQL step drifts from its SQLite twin', async () => {
    // Migration 2 with three mistakes: a column made nullable, another renamed, an index not made.
    const drifted = contentMigrations.map((m) =>
      m.id === 2
        ? {
            ...m,
            postgres: m.postgres
              .replace(
                'title TEXT COLLATE "C" NOT NULL,\n      angle',
                'title TEXT COLLATE "C",\n      angle',
              )
              .replace('daily_cap BIGINT', 'day_cap BIGINT')
              .replace('CREATE INDEX posts_published ON posts (status, published_at);', ''),
          }
        : m,
    );
    const diff = await diffOf('content', drifted);
    expect(diff).toEqual(
      expect.arrayContaining([
        '- sqlite:   ideas.title: #4 TEXT not null default -',
        '+ postgres: ideas.title: #4 TEXT null default -',
        '- sqlite:   automations.daily_cap: #8 INTEGER not null default -',
        '+ postgres: automations.day_cap: #8 INTEGER not null default -',
        '- sqlite:   posts: index posts_published (status, published_at)',
      ]),
    );
    expect(diff).toHaveLength(5);
  });
});
