// Ninth pass (outside attack on stop 30): the MCP key cache's guarantee ("once a revoke has
// returned, no instance on the database accepts the key") attacked with real processes of the
// built server on one PostgreSQL database, the way instances on several machines share it:
// - wall clocks that disagree (libfaketime on one process; its monotonic clock is left alone);
// - an instance paused with SIGSTOP while it holds a lease.
// docs/security.md, "Ninth pass: outside attack on stop 30".
import { describe, expect, it } from 'vitest';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import type { BuiltServer } from '../helpers/built-server.js';
import { runCliAsync } from '../helpers/cli.js';
import { asService, skewed, skewedBuiltPair } from '../helpers/skewed-pair.js';
import { api } from '../helpers/start.js';

const listAgents = (server: BuiltServer, key: string) =>
  rawMcp(asService(server), {
    key,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
  });

/** Two calls that succeed: the key is in the instance's cache after. */
async function warm(server: BuiltServer, key: string) {
  for (let i = 0; i < 2; i++) expect((await listAgents(server, key)).status).toBe(200);
}

describe('key cache across real processes: skewed wall clocks, a paused instance', () => {
  // A dot-folder in the data directory's path, as the house rules ask.
  const pair = skewedBuiltPair('content', '.svc-key-epoch-');
  const { files } = pair;

  it('a revoke on A waits for B, whose wall clock is 90 s behind, and B refuses the key next', async () => {
    const { a, b } = pair;
    // Three rounds: where the revoke does not wait for B, B's own renewal (every 0.5 s) may still
    // land between the revoke and the call; it cannot in all three.
    for (let round = 0; round < 3; round++) {
      const { key, id } = await makeKey(asService(a), ['read']);
      await warm(b, key);
      expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
      expect((await listAgents(b, key)).status, 'B accepted a key revoked before the call').toBe(401);
    }
  });

  it('`svc-server keys revoke` from a machine whose clock is 90 s ahead still waits for both instances', async () => {
    const { a, b } = pair;
    const { key, id } = await makeKey(asService(a), ['read']);
    await warm(a, key);
    await warm(b, key);
    const revoked = await runCliAsync(
      ['keys', 'revoke', id, '--service', 'content', '--json'],
      files.env(skewed('+90s')),
    );
    expect(revoked.status, revoked.stderr).toBe(0);
    for (const server of [b, a])
      expect((await listAgents(server, key)).status, 'a key revoked by the CLI was accepted').toBe(401);
  });

  it('A paused (SIGSTOP) with the key cached: a revoke by the CLI waits its lease out, and A refuses the key on resuming', async () => {
    const { a } = pair;
    const { key, id } = await makeKey(asService(a), ['read']);
    await warm(a, key);
    a.child.kill('SIGSTOP');
    try {
      const revoked = await runCliAsync(
        ['keys', 'revoke', id, '--service', 'content', '--json'],
        files.env(),
      );
      expect(revoked.status, revoked.stderr).toBe(0);
      // A could not acknowledge: the CLI waited its lease out and says whom it waited for.
      expect(revoked.stderr).toContain('did not acknowledge');
    } finally {
      a.child.kill('SIGCONT');
    }
    // Resumed, A may still have the renewal it missed to run: the call may come first.
    expect((await listAgents(a, key)).status, 'A accepted the key after resuming').toBe(401);
  });
});
