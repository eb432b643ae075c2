import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { commerceMigrations } from './commerce/db/migrations.js';
import { contentMigrations } from './content/db/migrations/index.js';
import { migratePostgres, quoteIdent } from './platform/db/migrate.js';
import { loadPg } from './platform/db/postgres.js';
import type { Migration } from './platform/db/sql.js';

/**
 * `svc-server migrate-to-postgres`: moves a SQLite deployment (`content.sqlite` and
 * `commerce.sqlite` in the data directory) into the PostgreSQL database at SERVICE_DATABASE_URL,
 * one schema per service. The SQLite files are only read. Media files are not copied: they stay
 * in the data directory, which the services keep using.
 *
 * Refuses, before writing anything, when a SQLite file is at another schema version than this
 * svc-server, or when the target already holds rows. Each service is copied in one transaction,
 * so a failure leaves that service's tables empty, never half-filled.
 */

/** A reason to stop that the operator can act on: printed as one message, exit code 1. */
export class MigrationRefused extends Error {}

interface ServiceSource {
  schema: 'content' | 'commerce';
  file: string;
  migrations: readonly Migration[];
}

const SOURCES: readonly ServiceSource[] = [
  { schema: 'content', file: 'content.sqlite', migrations: contentMigrations },
  { schema: 'commerce', file: 'commerce.sqlite', migrations: commerceMigrations },
];

/** Tables the migration runners own; each engine writes its own. */
const RUNNER_TABLES = new Set(['schema_migrations']);

/** Stays under PostgreSQL's 65535 bind parameters per statement, whatever the column count. */
const MAX_PARAMS_PER_INSERT = 30_000;
const MAX_ROWS_PER_INSERT = 500;

type SqlRow = Record<string, unknown>;

export interface MigrateToPostgresOptions {
  dataDir: string;
  databaseUrl: string;
  /** One line of the report (no trailing newline). */
  out: (line: string) => void;
}

export async function migrateToPostgres(opts: MigrateToPostgresOptions): Promise<void> {
  const present = SOURCES.filter((s) => existsSync(join(opts.dataDir, s.file)));
  if (present.length === 0) {
    throw new MigrationRefused(
      `no content.sqlite or commerce.sqlite in ${opts.dataDir}. Set SERVICE_DATA_DIR to the data directory to move.`,
    );
  }
  const opened = present.map((s) => ({ source: s, db: openSource(opts.dataDir, s) }));
  // One connection for the copy, one for the migration runner (it takes its own from the pool).
  const pool = new (await loadPg()).Pool({ connectionString: opts.databaseUrl, max: 2 });
  let client: pg.PoolClient | undefined;
  try {
    for (const { source, db } of opened) checkSourceVersion(db, source);
    client = await pool.connect().catch((err: Error) => {
      throw new MigrationRefused(`cannot connect to SERVICE_DATABASE_URL: ${err.message}`);
    });
    for (const { source } of opened) await refuseNonEmpty(client, source.schema);
    for (const { source, db } of opened) {
      const from = await targetVersion(client, source.schema);
      await migratePostgres(pool, source.schema, source.migrations);
      const to = source.migrations.length;
      opts.out(
        `${source.schema}: ${source.file} -> schema "${source.schema}" (migrations ${from === to ? `at ${to}` : `${from + 1}-${to} applied`})`,
      );
      await copyService(client, db, source, opts.out);
    }
    for (const s of SOURCES.filter((x) => !present.includes(x))) {
      opts.out(`${s.schema}: no ${s.file} in the data directory; nothing to move.`);
    }
    opts.out(
      `Media files were not copied: they stay in ${join(opts.dataDir, 'media')}; keep SERVICE_DATA_DIR pointing at this directory.`,
    );
  } finally {
    for (const { db } of opened) db.close();
    client?.release();
    await pool.end().catch(() => undefined);
  }
}

/** The last migration the target's schema has (0 when the schema or its bookkeeping is missing). */
async function targetVersion(client: pg.ClientBase, schema: string): Promise<number> {
  const table = `${quoteIdent(schema)}.schema_migrations`;
  const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
  if (!exists.rows[0]?.t) return 0;
  const r = await client.query<{ id: string | null }>(`SELECT MAX(id) AS id FROM ${table}`);
  return Number(r.rows[0]?.id ?? 0);
}

function openSource(dataDir: string, source: ServiceSource): Database.Database {
  const db = new Database(join(dataDir, source.file), { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

function checkSourceVersion(db: Database.Database, source: ServiceSource): void {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  const version = hasTable
    ? ((db.prepare('SELECT MAX(id) AS id FROM schema_migrations').get() as { id: number | null }).id ?? 0)
    : 0;
  const known = source.migrations.length;
  if (version < known) {
    throw new MigrationRefused(
      `${source.file} is at schema ${version}; this svc-server is at ${known}. Start this svc-server once on the SQLite data directory (without SERVICE_DATABASE_URL) so it brings the file up to date, stop it, then run migrate-to-postgres again.`,
    );
  }
  if (version > known) {
    throw new MigrationRefused(
      `${source.file} was written by a newer svc-server (schema ${version}; this one knows ${known}). Run migrate-to-postgres from that version.`,
    );
  }
}

/** The service's tables in the target, as PostgreSQL lists them (none when the schema is new). */
async function targetTables(client: pg.ClientBase, schema: string): Promise<string[]> {
  const r = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [schema],
  );
  return r.rows.map((row) => row.table_name).filter((t) => !RUNNER_TABLES.has(t));
}

async function refuseNonEmpty(client: pg.ClientBase, schema: string): Promise<void> {
  const filled: string[] = [];
  for (const table of await targetTables(client, schema)) {
    const r = await client.query(`SELECT 1 FROM ${quoteIdent(schema)}.${quoteIdent(table)} LIMIT 1`);
    if (r.rowCount) filled.push(`${schema}.${table}`);
  }
  if (filled.length > 0) {
    throw new MigrationRefused(
      `the target database already holds rows (${filled.join(', ')}); migrate-to-postgres only fills an empty one. Use a new database, or drop the schemas (DROP SCHEMA ${schema} CASCADE) if nothing there is needed. (A service started on it first seeds the demo brand: set SERVICE_SEED=none, or move the data before the first start.)`,
    );
  }
}

async function copyService(
  client: pg.ClientBase,
  db: Database.Database,
  source: ServiceSource,
  out: (line: string) => void,
): Promise<void> {
  const tables = tablesInForeignKeyOrder(db);
  // One read transaction on SQLite too, so every table is read from the same snapshot.
  db.exec('BEGIN');
  await client.query('BEGIN');
  try {
    // Checked again inside the transaction: an instance may have started on the target meanwhile.
    await refuseNonEmpty(client, source.schema);
    const counts: [string, number][] = [];
    for (const table of tables) counts.push([table, await copyTable(client, db, source.schema, table)]);
    const reset = await resetSequences(client, source.schema);
    await client.query('COMMIT');
    const width = Math.max(...counts.map(([t]) => t.length));
    for (const [table, n] of counts) out(`  ${table.padEnd(width)}  ${n} ${n === 1 ? 'row' : 'rows'}`);
    if (reset > 0) out(`  ${reset} identity sequence(s) moved past the copied ids`);
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    db.exec('COMMIT');
  }
}

/**
 * Parents before children, so every foreign key finds its row (PostgreSQL checks them at once).
 * A table's references to itself are handled row by row in copyTable.
 */
function tablesInForeignKeyOrder(db: Database.Database): string[] {
  const tables = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[]
  )
    .map((r) => r.name)
    .filter((t) => !RUNNER_TABLES.has(t));
  const parents = new Map(
    tables.map((t) => [
      t,
      (db.pragma(`foreign_key_list(${quoteIdent(t)})`) as { table: string }[])
        .map((fk) => fk.table)
        .filter((p) => p !== t),
    ]),
  );
  const ordered: string[] = [];
  const visit = (t: string, path: string[]) => {
    if (ordered.includes(t)) return;
    if (path.includes(t)) throw new Error(`foreign keys form a cycle: ${[...path, t].join(' -> ')}`);
    for (const p of parents.get(t) ?? []) visit(p, [...path, t]);
    ordered.push(t);
  };
  for (const t of tables) visit(t, []);
  return ordered;
}

async function copyTable(client: pg.ClientBase, db: Database.Database, schema: string, table: string) {
  const target = await client.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [schema, table],
  );
  const columns = target.rows.map((c) => c.column_name);
  const sourceColumns = (db.pragma(`table_info(${quoteIdent(table)})`) as { name: string }[]).map(
    (c) => c.name,
  );
  if (columns.length === 0 || [...columns].sort().join() !== [...sourceColumns].sort().join()) {
    throw new Error(
      `${schema}.${table} has columns (${columns.join(', ')}) on PostgreSQL but (${sourceColumns.join(', ')}) in SQLite.`,
    );
  }
  const flags = new Set(target.rows.filter((c) => c.data_type === 'boolean').map((c) => c.column_name));
  // Integers as BigInt: a value past 2^53 must not lose digits on the way.
  const select = db
    .prepare(`SELECT ${columns.map(quoteIdent).join(', ')} FROM ${quoteIdent(table)}`)
    .safeIntegers(true);
  const selfRefs = (
    db.pragma(`foreign_key_list(${quoteIdent(table)})`) as {
      table: string;
      from: string;
      to: string;
    }[]
  ).filter((fk) => fk.table === table);
  let rows: Iterable<SqlRow> = select.iterate() as IterableIterator<SqlRow>;
  for (const fk of selfRefs) rows = parentsFirst([...rows], fk.from, fk.to);

  const perInsert = Math.max(
    1,
    Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMS_PER_INSERT / columns.length)),
  );
  const head = `INSERT INTO ${quoteIdent(schema)}.${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) VALUES `;
  let batch: unknown[][] = [];
  let copied = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch.map(
      (_, r) => `(${columns.map((_c, i) => `$${r * columns.length + i + 1}`).join(', ')})`,
    );
    await client.query(head + values.join(', '), batch.flat());
    copied += batch.length;
    batch = [];
  };
  for (const row of rows) {
    batch.push(columns.map((c) => toPostgres(row[c], flags.has(c), `${schema}.${table}.${c}`)));
    if (batch.length >= perInsert) await flush();
  }
  await flush();
  const check = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${quoteIdent(schema)}.${quoteIdent(table)}`,
  );
  if (Number(check.rows[0]?.n) !== copied) {
    throw new Error(`${schema}.${table}: copied ${copied} rows but the table holds ${check.rows[0]?.n}.`);
  }
  return copied;
}

/** SQLite's 0/1 flags become booleans; integers travel as text so none loses precision. */
function toPostgres(value: unknown, flag: boolean, where: string): unknown {
  if (value === null || value === undefined) return null;
  if (flag) {
    if (value === 0n || value === 0) return false;
    if (value === 1n || value === 1) return true;
    throw new Error(`${where} holds ${String(value)}, not a 0/1 flag; fix the row in SQLite first.`);
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * Orders a table's rows so a row comes after the row it references in the same table (an agent
 * run after its parent run). Rows whose parent is missing keep their place at the end, and
 * PostgreSQL then names the broken reference.
 */
function parentsFirst(rows: SqlRow[], from: string, to: string): SqlRow[] {
  const ordered: SqlRow[] = [];
  const placed = new Set<unknown>();
  let pending = rows;
  while (pending.length > 0) {
    const waiting: SqlRow[] = [];
    for (const row of pending) {
      const parent = row[from];
      if (parent === null || parent === undefined || placed.has(parent)) {
        ordered.push(row);
        placed.add(row[to]);
      } else {
        waiting.push(row);
      }
    }
    if (waiting.length === pending.length) return [...ordered, ...waiting];
    pending = waiting;
  }
  return ordered;
}

/** Moves every identity or serial sequence in the schema past the largest id copied into it. */
async function resetSequences(client: pg.ClientBase, schema: string): Promise<number> {
  const r = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = $1 AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')`,
    [schema],
  );
  for (const { table_name: table, column_name: column } of r.rows) {
    const qualified = `${quoteIdent(schema)}.${quoteIdent(table)}`;
    await client.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT MAX(${quoteIdent(column)}) FROM ${qualified}), 0) + 1, false)`,
      [qualified, column],
    );
  }
  return r.rows.length;
}
