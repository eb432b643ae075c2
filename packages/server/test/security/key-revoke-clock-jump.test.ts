// Clocks pass (stop 35): a revoke must wait for every instance that may hold a lease on the key
// cache, whatever any clock does. Before, a revoke skipped rows whose heartbeat was over 60 s old
// by "database time": on SQLite that is the writing process's wall clock, and PostgreSQL's
// clock_timestamp() can step (NTP, a VM resumed). A clock that jumped made the live instance B look
// dead, the revoke returned without waiting for it, and B accepted the revoked key from its cache.
// Now nothing compares times: a revoke waits for every row that has not seen its epoch (at most a
// lease), and only a row whose stamp stayed the same for a minute on a sweeper's monotonic clock
// is deleted. docs/security.md, "Clocks pass". Both cases failed on the old build on SQLite; the
// second also on PostgreSQL.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { listAgentsCall, makeKey } from '../content/mcp-helpers.js';
import { type BuiltServer, killHard, startBuilt } from '../helpers/built-server.js';
import { binFiles } from '../helpers/cli.js';
import { asService, skewed } from '../helpers/skewed-pair.js';
import { api } from '../helpers/start.js';

describe('key revocation when a clock jumps (two built processes on one database)', () => {
  const files = binFiles('.svc-clock-jump-');
  let a: BuiltServer | undefined;
  let b: BuiltServer | undefined;
  let db: SqlDatabase | undefined;
  /** B's wall clock offset, re-read by libfaketime on every call: writing it makes B's clock jump. */
  let offsetFile = '';
  const jumpB = (offset: string) => writeFileSync(offsetFile, `${offset}\n`);

  beforeAll(async () => {
    offsetFile = join(files.dataDir, 'b-clock-offset');
    jumpB('+0s');
    a = await startBuilt('content', files.env());
    const { FAKETIME: _, ...preload } = skewed('+0s');
    b = await startBuilt(
      'content',
      files.env({ ...preload, FAKETIME_TIMESTAMP_FILE: offsetFile, FAKETIME_NO_CACHE: '1' }),
    );
    db = await openServiceDatabase({
      service: 'content',
      dataDir: files.dataDir,
      databaseUrl: files.env().SERVICE_DATABASE_URL,
      poolSize: 1,
      migrations: contentMigrations,
    });
  });
  afterAll(async () => {
    await db?.close();
    await Promise.all([a && killHard(a), b && killHard(b)]);
  });
  const started = () => {
    if (!a || !b || !db) throw new Error('the servers start in beforeAll');
    return { a: asService(a), b: asService(b), bPid: b.child.pid, db };
  };

  /** A key warm in B's cache, revoked through A over REST; B's next call must be refused. */
  async function revokeWhileWarmOnB(before: () => Promise<void> = async () => {}) {
    const { a, b } = started();
    const { key, id } = await makeKey(a, ['read']);
    for (let i = 0; i < 2; i++) expect((await listAgentsCall(b, key)).status).toBe(200);
    await before();
    expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    expect((await listAgentsCall(b, key)).status, 'B accepted a key revoked before the call').toBe(401);
  }

  it("B's wall clock steps back 90 s while it runs: revokes still wait for B", async () => {
    jumpB('-90s');
    try {
      // Three rounds: B's own renewal (every 0.5 s) may land between a revoke that did not wait
      // and the call in one round; not in all three. From the first acknowledgement on, B's row
      // was stamped with its jumped clock (on SQLite).
      for (let round = 0; round < 3; round++) await revokeWhileWarmOnB();
    } finally {
      jumpB('+0s');
    }
  });

  it("the database's clock steps 90 s forward after B's heartbeat: revokes still wait for B", async () => {
    const { bPid, db } = started();
    // What B's row looks like when the database's clock jumped 90 s ahead just after B wrote it.
    const ninetySecondsAgo =
      db.dialect === 'postgres'
        ? `to_char((clock_timestamp() - interval '90 seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
        : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-90 seconds')`;
    const jumpDatabaseClock = async () => {
      const r = await db.run(
        `UPDATE key_epoch_instances SET heartbeat_at = ${ninetySecondsAgo} WHERE instance LIKE ?`,
        [`%/${bPid}/%`],
      );
      expect(r.changes, "B's heartbeat row").toBe(1);
    };
    for (let round = 0; round < 3; round++) await revokeWhileWarmOnB(jumpDatabaseClock);
  });
});
