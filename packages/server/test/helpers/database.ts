import { openServiceDatabase, type ServiceName } from '../../src/platform/db/open.js';
import type { Migration, SqlDatabase } from '../../src/platform/db/sql.js';
import { createTestPostgresDatabase, TEST_POOL_SIZE, testEngine } from '../../src/testing.js';

// The engine and its fresh PostgreSQL databases are shared with the other packages' tests
// through `@svc/server/testing`; the files named `*.postgres.test.ts` / `*.sqlite.test.ts` run
// only on theirs (vitest.config.ts picks them).
export {
  createTestPostgresDatabase,
  TEST_POOL_SIZE,
  type TestEngine,
  type TestPostgresDatabase,
  testEngine,
  testPostgresAdminUrl,
} from '../../src/testing.js';

export interface TestDatabase {
  db: SqlDatabase;
  /** Another handle on the same database (a second instance, a second connection). */
  another(): Promise<SqlDatabase>;
  /** Closes every handle opened here and removes the data (SQLite file or PostgreSQL database). */
  close(): Promise<void>;
}

/**
 * A service database on the test engine, migrated, in `dataDir` (SQLite) or in a fresh
 * PostgreSQL database: for tests that work below HTTP (stores, races between connections).
 */
export async function openTestDatabase(
  service: ServiceName,
  migrations: readonly Migration[],
  dataDir: string,
): Promise<TestDatabase> {
  const pgDatabase = testEngine === 'postgres' ? await createTestPostgresDatabase() : undefined;
  const handles: SqlDatabase[] = [];
  const open = async () => {
    const db = await openServiceDatabase({
      service,
      dataDir,
      databaseUrl: pgDatabase?.url,
      poolSize: TEST_POOL_SIZE,
      migrations,
    });
    handles.push(db);
    return db;
  };
  const db = await open();
  return {
    db,
    another: open,
    async close() {
      await Promise.all(handles.map((h) => h.close()));
      await pgDatabase?.drop();
    },
  };
}
