import { expect } from 'vitest';
import { ADDRESS, BUYER, type Commerce, PROTOCOL, sandboxUser } from './helpers.js';

/** A checkout's stored confirm link, and a checkout waiting for its user's confirmation, on `c()`. */
export function confirmLinkTools(c: () => Commerce) {
  const row = (id: string) =>
    c().handle.db.get<{ next_action: string; confirm_token_hash: string }>(
      'SELECT next_action, confirm_token_hash FROM checkouts WHERE id = ?',
      [id],
    );

  async function waiting() {
    const { call } = await sandboxUser(c().svc, c().sandboxKey, { rules: { confirm_above: 1500 } });
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

  return { row, waiting };
}
