// Twelfth pass (outside attack on stop 33): key revocation across two processes of the built
// server on one SQLite file (the PostgreSQL twins are key-epoch-processes and
// commerce/key-epoch.postgres). A key revoked on A must be refused by B on its very next request,
// on content's MCP endpoint (content's REST API takes no keys: it trusts local requests) and on
// commerce, whatever B had cached (its key cache, the MCP answer memo of list_agents).
// One SQLite file is shared by processes of one machine, so both read one clock. (A clock that
// jumps is key-revoke-clock-jump.test.ts: since the clocks pass no clock judges liveness.)
import { describe, expect, it } from 'vitest';
import { dashboardKey, expectRefused, merchants, revokeOnDashboard } from '../commerce/key-cache-helpers.js';
import { listAgentsCall, makeKey } from '../content/mcp-helpers.js';
import { asService, skewedBuiltPair } from '../helpers/skewed-pair.js';
import { api } from '../helpers/start.js';

/** One machine, one clock (see above); B still runs under libfaketime, at no offset. */
const OFFSET = '+0s';

describe('content keys: revoked on A, refused next on B (one SQLite file, two processes)', () => {
  const pair = skewedBuiltPair('content', '.svc-revoke-content-', OFFSET);

  it('MCP, with the key and the list_agents answer warm on B', async () => {
    for (let round = 0; round < 3; round++) {
      const a = asService(pair.a);
      const b = asService(pair.b);
      const { key, id } = await makeKey(a, ['read']);
      for (let i = 0; i < 2; i++) expect((await listAgentsCall(b, key)).status).toBe(200);
      expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
      expect((await listAgentsCall(b, key)).status, 'B answered MCP with a revoked key').toBe(401);
    }
  });
});

describe('commerce keys: revoked on A, refused next on B (one SQLite file, two processes)', () => {
  const pair = skewedBuiltPair('commerce', '.svc-revoke-commerce-', OFFSET);

  it('a sandbox and a live key warm on B', async () => {
    for (const env of ['sandbox', 'live', 'sandbox'] as const) {
      const a = asService(pair.a);
      const b = asService(pair.b);
      const { key, id } = await dashboardKey(a, env);
      for (let i = 0; i < 2; i++) expect((await merchants(b, key)).status).toBe(200);
      expect((await revokeOnDashboard(a, id)).status).toBe(200);
      await expectRefused(b, key, 'B');
    }
  });
});
