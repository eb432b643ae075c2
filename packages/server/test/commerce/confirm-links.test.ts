import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmLinksHashed } from '../../src/commerce/db/migrations/009-confirm-links-hashed.js';
import { testEngine } from '../helpers/database.js';
import { ADDRESS, BUYER, type Commerce, PROTOCOL, sandboxUser, startCommerce } from './helpers.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Issue 18 item 16: the hosted confirm link's token (`confirm-<env>-…`) was kept in clear in
 * `checkouts.next_action`, while every other token is kept only as a hash. A copy of the database
 * must not open anyone's confirm page.
 */
describe('hosted confirm links: the database keeps only the hash of their token', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  const row = (id: string) =>
    c.handle.db.get<{ next_action: string; confirm_token_hash: string }>(
      'SELECT next_action, confirm_token_hash FROM checkouts WHERE id = ?',
      [id],
    );

  async function waiting() {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { rules: { confirm_above: 1500 } });
    const chk = await call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/price-5000-chair`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(chk.body.next_action.type).toBe('user_confirmation');
    const token = new URL(chk.body.next_action.url).searchParams.get('token') as string;
    expect(token).toMatch(/^confirm-sandbox-/);
    return { call, chk: chk.body, token };
  }

  it('the link is in the answer; the row holds its hash and no link; a later read says how to get a new one', async () => {
    const { call, chk, token } = await waiting();
    const stored = await row(chk.id);
    expect(stored?.next_action).not.toContain(token);
    expect(JSON.parse(stored?.next_action as string)).not.toHaveProperty('url');
    expect(stored?.confirm_token_hash).toBe(sha256(token));
    expect((await fetch(chk.next_action.url)).status).toBe(200);

    const later = await call('GET', `/v1/checkouts/${chk.id}`);
    expect(later.body.next_action).toEqual({
      type: 'user_confirmation',
      description: expect.stringContaining(`POST /v1/checkouts/${chk.id}/update gives a new one`),
    });

    // An update (here with nothing to change) issues a new link, and the old one stops working.
    const renewed = await call('POST', `/v1/checkouts/${chk.id}/update`, {});
    expect(renewed.status).toBe(200);
    expect(renewed.body.next_action.url).toContain('/hosted/confirm?token=confirm-sandbox-');
    expect(renewed.body.next_action.url).not.toBe(chk.next_action.url);
    expect((await fetch(chk.next_action.url)).status).toBe(410);
    expect((await fetch(renewed.body.next_action.url)).status).toBe(200);
    expect((await row(chk.id))?.next_action).not.toContain('token=');
  });

  // SQLite only: the fix-up is SQLite's (PostgreSQL deployments never stored such links).
  it.runIf(testEngine === 'sqlite')(
    'the migration drops links kept by older versions, and a link already handed out still opens its page',
    async () => {
      const { chk } = await waiting();
      // A row as an older version wrote it: the link, token and all, in next_action.
      await c.handle.db.run('UPDATE checkouts SET next_action = ? WHERE id = ?', [
        JSON.stringify(chk.next_action),
        chk.id,
      ]);
      expect((await row(chk.id))?.next_action).toContain('token=');
      await c.handle.db.run(confirmLinksHashed.up as string);
      const migrated = JSON.parse((await row(chk.id))?.next_action as string);
      expect(migrated).toEqual({ type: 'user_confirmation', description: chk.next_action.description });
      expect((await fetch(chk.next_action.url)).status).toBe(200);
    },
  );
});
