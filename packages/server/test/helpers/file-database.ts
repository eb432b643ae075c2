import { afterAll, beforeAll } from 'vitest';
import type { ServiceName } from '../../src/platform/db/open.js';
import type { Migration, SqlDatabase } from '../../src/platform/db/sql.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { removeTempDataDir, tempDataDir } from './start.js';

/**
 * A migrated service database on the test engine for the calling file's tests, below HTTP (an
 * index list, a query plan, a race between two connections): opened in a fresh temporary data
 * directory before the file's first test, closed and removed after its last. Read `db` inside a
 * test; `another()` opens a second handle on it (a second instance).
 */
export function databaseForFile(service: ServiceName, migrations: readonly Migration[], prefix: string) {
  const dir = tempDataDir(prefix);
  let opened: TestDatabase | undefined;
  beforeAll(async () => {
    opened = await openTestDatabase(service, migrations, dir);
  });
  afterAll(async () => {
    await opened?.close();
    removeTempDataDir(dir);
  });
  const open = () => {
    if (!opened) throw new Error('databaseForFile: the database opens in beforeAll; use it inside a test.');
    return opened;
  };
  return {
    get db(): SqlDatabase {
      return open().db;
    },
    another: () => open().another(),
  };
}
