import type Database from 'better-sqlite3';
import type pg from 'pg';
import type { Migration } from './sql.js';

/**
 * Forward-only, numbered migrations with the same bookkeeping on both engines: a
 * `schema_migrations` row per applied step, each step in its own transaction with its row, so a
 * crash leaves the database at a step boundary. A database written by a newer svc-server (more
 * steps than this version knows) is refused rather than run against a schema it does not know.
 */

/** Where migration notes go when the caller has no logger (the CLI): one line on stderr each. */
export const stderrLog = (message: string) => process.stderr.write(`svc-server: ${message}\n`);

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

/**
 * Creates the schema if it is missing and brings it up to date. Everything runs on one
 * connection holding a session advisory lock keyed by the schema, so several instances starting
 * at once apply each step once: the others wait, then find the steps recorded.
 */
export async function migratePostgres(
  pool: pg.Pool,
  schema: string,
  migrations: readonly Migration[],
  label = schema,
): Promise<void> {
  checkNumbering(migrations);
  const missing = migrations.filter((m) => !m.postgres);
  if (missing.length)
    throw new Error(
      `${label}: ${missing.length === 1 ? 'migration' : 'migrations'} ${missing.map((m) => `${m.id} (${m.name})`).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no PostgreSQL step (the \`postgres\` field); this build cannot run on PostgreSQL.`,
    );
  const client = await pool.connect();
  const lockKey = `svc-server migrate ${schema}`;
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query(`SET search_path TO ${quoteIdent(schema)}`);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at TEXT COLLATE "C" NOT NULL)`);
      const { rows } = await client.query<{ id: string | null }>(
        'SELECT MAX(id) AS id FROM schema_migrations',
      );
      const current = Number(rows[0]?.id ?? 0);
      refuseNewer(label, current, migrations.length);
      for (const m of migrations.slice(current)) {
        await client.query('BEGIN');
        try {
          await client.query(m.postgres);
          await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
            m.id,
            m.name,
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`${label}, migration ${m.id} (${m.name}) failed: ${(err as Error).message}`, {
            cause: err,
          });
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
