import type Database from 'better-sqlite3';
import type pg from 'pg';

/**
 * One schema flattened to sorted lines, one fact each ("posts.slot_hour TEXT null"), so two
 * engines' schemas compare as sets and a mismatch prints as the lines only one side has.
 *
 * Types are named in SQLite's words: PostgreSQL's `TEXT COLLATE "C"` reads as TEXT, BIGINT and
 * BOOLEAN as INTEGER (the 0/1 flags; a BOOLEAN is marked so the flags can be listed), DOUBLE
 * PRECISION as REAL, BYTEA as BLOB. Anything else (a text column in another collation, an
 * INTEGER) shows under its own name and so differs.
 *
 * Primary-key columns count as NOT NULL on SQLite too: a non-INTEGER primary key there accepts
 * NULL only through a legacy quirk no store relies on, and PostgreSQL refuses it.
 *
 * Left out: `schema_migrations`, which each engine's migration runner owns.
 */
export type SchemaShape = string[];

const RUNNER_TABLES = new Set(['schema_migrations']);

const PG_ON_DELETE: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/** Defaults in one spelling: PostgreSQL's `'[]'::text` and `false` read as SQLite's `'[]'` and `0`. */
function normaliseDefault(value: string | null): string {
  if (value === null) return '-';
  // An insertion-order column: PostgreSQL fills it from its sequence by default, SQLite by a
  // trigger (platform/db/ordering-column.ts), which table_info shows as no default.
  if (/^nextval\('([a-z_]+\.)?[a-z_]+_seq'::regclass\)$/.test(value)) return '-';
  const v = value.replace(/::[a-z ]+$/, '');
  if (v === 'false') return '0';
  if (v === 'true') return '1';
  return v;
}

const countChecks = (sql: string) => (sql.match(/\bCHECK\s*\(/gi) ?? []).length;

export function sqliteShape(db: Database.Database): SchemaShape {
  const lines: string[] = [];
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string; sql: string }[];
  for (const { name: table, sql } of tables) {
    if (RUNNER_TABLES.has(table)) continue;
    lines.push(`${table}: table, ${countChecks(sql)} check(s)`);
    const columns = db.pragma(`table_info(${table})`) as {
      cid: number;
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    lines.push(`${table}: primary key (${pk.map((c) => c.name).join(', ')})`);
    for (const c of columns) {
      const nullable = c.notnull || c.pk ? 'not null' : 'null';
      lines.push(
        `${table}.${c.name}: #${c.cid} ${c.type} ${nullable} default ${normaliseDefault(c.dflt_value)}`,
      );
    }
    const indexes = db.pragma(`index_list(${table})`) as {
      name: string;
      unique: number;
      origin: string;
      partial: number;
    }[];
    for (const ix of indexes) {
      if (ix.origin === 'pk') continue;
      const cols = (
        db.pragma(`index_xinfo(${ix.name})`) as { name: string | null; desc: number; key: number }[]
      )
        .filter((c) => c.key === 1)
        .map((c) => `${c.name}${c.desc ? ' DESC' : ''}`)
        .join(', ');
      // Unnamed UNIQUE constraints get engine-made names (sqlite_autoindex_…, …_key): compare by columns.
      const label = ix.origin === 'u' ? 'unique constraint' : `index ${ix.name}`;
      lines.push(`${table}: ${label} (${cols})${ix.unique ? ' unique' : ''}${ix.partial ? ' partial' : ''}`);
    }
    const fks = db.pragma(`foreign_key_list(${table})`) as {
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string;
      on_delete: string;
    }[];
    for (const id of new Set(fks.map((f) => f.id))) {
      const parts = fks.filter((f) => f.id === id).sort((a, b) => a.seq - b.seq);
      lines.push(
        `${table}: foreign key (${parts.map((p) => p.from).join(', ')}) -> ${parts[0]?.table}(${parts
          .map((p) => p.to)
          .join(', ')}) on delete ${parts[0]?.on_delete}`,
      );
    }
  }
  return lines.sort();
}

function pgType(dataType: string, collation: string | null): string {
  switch (dataType) {
    case 'text':
      return collation === 'C' ? 'TEXT' : `TEXT COLLATE ${collation ?? 'default'}`;
    case 'bigint':
      return 'INTEGER';
    case 'boolean':
      return 'INTEGER';
    case 'double precision':
      return 'REAL';
    case 'bytea':
      return 'BLOB';
    default:
      // integer, real, varchar…: named as PostgreSQL does, so they never pass for SQLite's words.
      return `postgres ${dataType}`;
  }
}

export async function postgresShape(client: pg.Client, schema: string): Promise<SchemaShape> {
  const lines: string[] = [];
  const tables = await client.query<{ table_name: string; checks: string }>(
    `SELECT t.table_name,
            (SELECT count(*) FROM pg_constraint k
              WHERE k.conrelid = format('%I.%I', t.table_schema, t.table_name)::regclass AND k.contype = 'c') AS checks
       FROM information_schema.tables t
      WHERE t.table_schema = $1 AND t.table_type = 'BASE TABLE'`,
    [schema],
  );
  for (const { table_name: table, checks } of tables.rows) {
    if (RUNNER_TABLES.has(table)) continue;
    lines.push(`${table}: table, ${checks} check(s)`);
    const columns = await client.query<{
      column_name: string;
      ordinal_position: number;
      data_type: string;
      collation_name: string | null;
      is_nullable: 'YES' | 'NO';
      column_default: string | null;
    }>(
      `SELECT column_name, ordinal_position, data_type, collation_name, is_nullable, column_default
         FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2
        ORDER BY ordinal_position`,
      [schema, table],
    );
    for (const c of columns.rows) {
      const nullable = c.is_nullable === 'NO' ? 'not null' : 'null';
      lines.push(
        `${table}.${c.column_name}: #${c.ordinal_position - 1} ${pgType(c.data_type, c.collation_name)} ${nullable} default ${normaliseDefault(c.column_default)}`,
      );
    }
    const indexes = await client.query<{
      name: string;
      unique: boolean;
      partial: boolean;
      constraint_type: string | null;
      columns: string[];
    }>(
      `SELECT ic.relname AS name, i.indisunique AS unique, i.indpred IS NOT NULL AS partial,
              k.contype AS constraint_type,
              array(SELECT a.attname || CASE WHEN (i.indoption[n.ord - 1] & 1) = 1 THEN ' DESC' ELSE '' END
                      FROM unnest(i.indkey) WITH ORDINALITY AS n(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = n.attnum
                     ORDER BY n.ord) AS columns
         FROM pg_index i
         JOIN pg_class ic ON ic.oid = i.indexrelid
         LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.contype IN ('p', 'u')
        WHERE i.indrelid = format('%I.%I', $1::text, $2::text)::regclass`,
      [schema, table],
    );
    for (const ix of indexes.rows) {
      const cols = ix.columns.join(', ');
      if (ix.constraint_type === 'p') {
        lines.push(`${table}: primary key (${ix.columns.join(', ')})`);
        continue;
      }
      const label = ix.constraint_type === 'u' ? 'unique constraint' : `index ${ix.name}`;
      lines.push(`${table}: ${label} (${cols})${ix.unique ? ' unique' : ''}${ix.partial ? ' partial' : ''}`);
    }
    if (!indexes.rows.some((ix) => ix.constraint_type === 'p')) lines.push(`${table}: primary key ()`);
    const fks = await client.query<{
      columns: string[];
      ref_table: string;
      ref_columns: string[];
      on_delete: string;
    }>(
      `SELECT array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS n(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = n.attnum ORDER BY n.ord) AS columns,
              rc.relname AS ref_table,
              array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS n(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = n.attnum ORDER BY n.ord) AS ref_columns,
              k.confdeltype AS on_delete
         FROM pg_constraint k JOIN pg_class rc ON rc.oid = k.confrelid
        WHERE k.contype = 'f' AND k.conrelid = format('%I.%I', $1::text, $2::text)::regclass`,
      [schema, table],
    );
    for (const fk of fks.rows) {
      lines.push(
        `${table}: foreign key (${fk.columns.join(', ')}) -> ${fk.ref_table}(${fk.ref_columns.join(', ')}) on delete ${PG_ON_DELETE[fk.on_delete] ?? fk.on_delete}`,
      );
    }
  }
  return lines.sort();
}

/** The columns PostgreSQL holds as BOOLEAN, as `table.column`: the 0/1 flags. */
export async function postgresBooleanColumns(client: pg.Client, schema: string): Promise<string[]> {
  const r = await client.query<{ name: string }>(
    `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
      WHERE table_schema = $1 AND data_type = 'boolean' ORDER BY 1`,
    [schema],
  );
  return r.rows.map((row) => row.name);
}

/** What only one side has, as `- sqlite: …` and `+ postgres: …` lines; empty when they match. */
export function shapeDiff(sqlite: SchemaShape, postgres: SchemaShape): string[] {
  const inPostgres = new Set(postgres);
  const inSqlite = new Set(sqlite);
  return [
    ...sqlite.filter((l) => !inPostgres.has(l)).map((l) => `- sqlite:   ${l}`),
    ...postgres.filter((l) => !inSqlite.has(l)).map((l) => `+ postgres: ${l}`),
  ];
}
