import type Database from 'better-sqlite3';
import type pg from 'pg';
import { noteOnStderr } from '../stdio-writes.js';
import type { Migration } from './sql.js';

/**
 * Forward-only, numbered migrations with the same bookkeeping on both engines: a
 * `schema_migrations` row per applied step, each step in its own transaction with its row, so a
 * crash leaves the database at a step boundary. A database written by a newer svc-server (more
 * steps than this version knows) is refused rather than run against a schema it does not know.
 */

/** Where migration notes go when the caller has no logger (the CLI): one line on stderr each. */
export const stderrLog = (message: string) => noteOnStderr(`svc-server: ${message}\n`);

function checkNumbering(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.id !== i + 1)
      throw new Error(`Migrations must be numbered 1..n without gaps; found ${m.id} at ${i + 1}.`);
  });
}

function refuseNewer(label: string, current: number, known: number): void {
  if (current > known)
    throw new Error(
      `${label} was written by a newer svc-server (schema ${current}, this version knows ${known}). Upgrade svc-server.`,
    );
}

export function migrateSqlite(
  db: Database.Database,
  migrations: readonly Migration[],
  label = 'database',
  log: (message: string) => void = stderrLog,
): void {
  checkNumbering(migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const current = () =>
    (db.prepare('SELECT MAX(id) AS id FROM schema_migrations').get() as { id: number | null }).id ?? 0;
  refuseNewer(label, current(), migrations.length);
  for (const m of migrations.slice(current())) {
    db.transaction(() => {
      // Another process (`svc-server keys create` beside a starting server) may have applied it
      // between our read and this write lock: IMMEDIATE makes this check and the step one.
      if (current() >= m.id) return;
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db, (message) => log(`${label}, migration ${m.id} (${m.name}): ${message}`));
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(
        m.id,
        m.name,
        new Date().toISOString(),
      );
    }).immediate();
  }
}

/** A double-quoted PostgreSQL identifier. */
export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A single-quoted PostgreSQL string literal (standard_conforming_strings, on since 9.1). */
const quoteLiteral = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** One step and its bookkeeping row, as SQL text: the batch below cannot bind parameters. */
const stepSql = (m: Migration, appliedAt: string) =>
  `${m.postgres}\n;\nINSERT INTO schema_migrations (id, name, applied_at) VALUES (${Number(m.id)}, ${quoteLiteral(m.name)}, ${quoteLiteral(appliedAt)})`;

/**
 * Creates the schema if it is missing and brings it up to date (on an up-to-date database: one
 * statement, see `upToDate`). Everything runs on one
 * connection holding a session advisory lock keyed by the schema, so several instances starting
 * at once apply each step once: the others wait, then find the steps recorded.
 *
 * The pending steps go to the server as one multi-statement query in one transaction: on an
 * empty database that is one round trip and one commit (one WAL flush) instead of four round
 * trips and a commit per step, which was most of a first start's wall time on PostgreSQL. If
 * the batch fails it is rolled back whole and the steps are run again one transaction each, so
 * the steps before the broken one are kept and the error names the step, as before.
 */
export async function migratePostgres(
  pool: pg.Pool,
  schema: string,
  migrations: readonly Migration[],
  label = schema,
  /** Told once the pending steps are sent, if any: what is left is the server's work (see open.ts). */
  sent?: () => void,
): Promise<void> {
  checkNumbering(migrations);
  const missing = migrations.filter((m) => !m.postgres);
  if (missing.length)
    throw new Error(
      `${label}: ${missing.length === 1 ? 'migration' : 'migrations'} ${missing.map((m) => `${m.id} (${m.name})`).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no PostgreSQL step (the \`postgres\` field); this build cannot run on PostgreSQL.`,
    );
  const client = await pool.connect();
  if (await upToDate(client, schema, migrations, label)) return;
  const lockKey = `svc-server migrate ${schema}`;
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
    try {
      // One round trip: a multi-statement query answers with one result per statement.
      const results = (await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)};
        SET search_path TO ${quoteIdent(schema)};
        CREATE TABLE IF NOT EXISTS schema_migrations (
          id BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at TEXT COLLATE "C" NOT NULL);
        SELECT MAX(id) AS id FROM schema_migrations`)) as unknown as pg.QueryResult<{ id: string | null }>[];
      const current = Number(results.at(-1)?.rows[0]?.id ?? 0);
      refuseNewer(label, current, migrations.length);
      const pending = migrations.slice(current);
      if (pending.length > 0) {
        const appliedAt = new Date().toISOString();
        try {
          const batch = client.query(
            `BEGIN;\n${pending.map((m) => stepSql(m, appliedAt)).join(';\n')};\nCOMMIT`,
          );
          sent?.();
          await batch;
        } catch {
          await client.query('ROLLBACK');
          await migrateStepByStep(client, pending, label);
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]);
    }
  } catch (err) {
    broken = err as Error;
    throw err;
  } finally {
    // The connection had its search_path changed: it goes, rather than back into the pool.
    client.release(broken ?? true);
  }
}

/**
 * Most starts find every step applied: one statement says so, without the lock, and the
 * connection goes back to the pool (its search_path untouched) instead of being replaced.
 * Safe without the lock because steps are only ever added: a count equal to this version's
 * cannot be a half-applied run (each step commits with its row). A missing schema or table
 * (a first start) is the locked path below; a newer database is refused here as there.
 */
async function upToDate(
  client: pg.PoolClient,
  schema: string,
  migrations: readonly Migration[],
  label: string,
): Promise<boolean> {
  let current: number;
  try {
    const { rows } = await client.query<{ id: string | null }>(
      `SELECT MAX(id) AS id FROM ${quoteIdent(schema)}.schema_migrations`,
    );
    current = Number(rows[0]?.id ?? 0);
  } catch {
    return false;
  }
  try {
    refuseNewer(label, current, migrations.length);
  } catch (err) {
    client.release();
    throw err;
  }
  if (current !== migrations.length) return false;
  client.release();
  return true;
}

/** Each step in its own transaction: after a failed batch, to keep the good steps and name the bad one. */
async function migrateStepByStep(client: pg.PoolClient, steps: readonly Migration[], label: string) {
  for (const m of steps) {
    try {
      await client.query(`BEGIN;\n${stepSql(m, new Date().toISOString())};\nCOMMIT`);
    } catch (err) {
      await client.query('ROLLBACK');
      throw new Error(`${label}, migration ${m.id} (${m.name}) failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
}
