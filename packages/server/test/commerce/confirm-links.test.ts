import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmLinkTools } from './confirm-link-tools.js';
import { type Commerce, startCommerce } from './helpers.js';

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

  const { row, waiting } = confirmLinkTools(() => c);

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
});
