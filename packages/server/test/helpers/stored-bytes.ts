import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import type { TestService } from './start.js';

/**
 * Everything a service has written down, to show a secret is in none of it: every file in its
 * data directory (the SQLite files with their WAL, media), and on PostgreSQL every row of every
 * table of its schema as text. Named so a failure says where the secret was found.
 */
export async function storedBytes(svc: TestService): Promise<{ name: string; bytes: Buffer }[]> {
  const files = readdirSync(svc.dataDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => ({ name: e.name, bytes: readFileSync(join(e.parentPath, e.name)) }));
  const db = (svc.handle as unknown as { db: SqlDatabase }).db;
  if (db.dialect !== 'postgres') return files;
  const tables = await db.all<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  for (const { name } of tables) {
    const rows = await db.all<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
    files.push({ name: `table ${name}`, bytes: Buffer.from(rows.map((r) => r.row).join('\n')) });
  }
  return files;
}
