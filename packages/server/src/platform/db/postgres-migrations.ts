import type pg from 'pg';
import type { Migration } from './sqlite.js';

/**
 * Brings one service's PostgreSQL schema (`content` or `commerce`) up to the last migration:
 * each `postgres` step in its own transaction, recorded in that schema's `schema_migrations` (the
 * same table SQLite keeps), under a transaction-level advisory lock per schema so instances that
 * start together apply each step once. A schema written by a newer svc-server is refused.
 *
 * The minimal runner `migrate-to-postgres` and the schema-parity test need; the PostgreSQL engine
 * of issue 19 brings the one the server starts with, and this one gives way to it at merge.
 */
export async function applyPostgresMigrations(
  client: pg.ClientBase,
  schema: string,
  migrations: readonly Migration[],
): Promise<{ from: number; to: number }> {
  const name = quoteIdent(schema);
  let from: number | null = null;
  for (;;) {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`svc-migrate:${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${name}`);
      await client.query(`SET LOCAL search_path TO ${name}`);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id BIGINT PRIMARY KEY, name TEXT COLLATE "C" NOT NULL, applied_at TEXT COLLATE "C" NOT NULL)`);
      const current = await schemaVersionIn(client);
      from ??= current;
      if (current > migrations.length) {
        throw new Error(
          `PostgreSQL schema ${schema} was written by a newer svc-server (schema ${current}, this version knows ${migrations.length}). Upgrade svc-server.`,
        );
      }
      const next = migrations[current];
      if (!next) {
        await client.query('COMMIT');
        return { from, to: current };
      }
      await client.query(next.postgres);
      await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
        next.id,
        next.name,
        new Date().toISOString(),
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  }
}

/** The last migration applied to the schema on the search path (0 when none). */
async function schemaVersionIn(client: pg.ClientBase): Promise<number> {
  const r = await client.query<{ id: string | null }>('SELECT MAX(id) AS id FROM schema_migrations');
  return Number(r.rows[0]?.id ?? 0);
}

/** A PostgreSQL identifier, quoted (schema and table names come from our own migrations). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
