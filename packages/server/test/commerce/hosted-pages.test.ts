import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/platform/clock.js';
import { ADDRESS, as, BUYER, type Commerce, PROTOCOL, sandboxUser, startCommerce } from './helpers.js';
import { fromHtml, openForm, submit } from './hosted-forms.js';

/** What a shopper must never see: the API's JSON, an error code, a stack. */
function expectShopperPage(res: { status: number; headers: Headers }, body: string, what: string) {
  expect(res.headers.get('content-type'), what).toMatch(/^text\/html/);
  expect(body.trimStart().startsWith('<!doctype html>'), what).toBe(true);
  expect(body, what).not.toMatch(/"error"\s*:/);
  expect(body, what).not.toMatch(/\b[A-Z]{2,}(?:_[A-Z]+)+\b/); // MERCHANT_NOT_SUPPORTED, INVALID_REQUEST, ...
  expect(body, what).not.toMatch(/\bat .+\.(?:ts|js):\d+/); // a stack frame
  expect(body, what).not.toMatch(/\blive\b/i); // every flow here is a sandbox one
}

/** A raw request, for bodies and headers fetch will not send as they are. */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; headers: Headers; body: string }>((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      let data = '';
      res.on('data', (c) => {
        data += c;
      });
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, body: data });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('approval tokens offer only stores that can be connected', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  const create = (key: string, merchant_ids: string[]) =>
    as(c.svc, key)('POST', '/v1/approval_tokens', {
      client_user_id: 'shopper',
      redirect_uri: 'https://app.example/callback',
      merchant_ids,
    });

  it('refuses a major retailer with a sandbox key, naming the id, in sandbox words', async () => {
    for (const ids of [['amazon'], ['sandbox-protocol', 'walmart']]) {
      const res = await create(c.sandboxKey, ids);
      const i = ids.length - 1;
      expect(res.status, ids.join()).toBe(422);
      expect(res.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
      expect(res.body.error.param).toBe(`merchant_ids[${i}]`);
      expect(res.body.error.message).toContain(`'${ids[i]}'`);
      expect(res.body.error.message).toMatch(/sandbox keys connect only sandbox stores/);
      expect(res.body.error.message).not.toMatch(/\blive\b/i);
    }
  });

  it('refuses an unknown id with 400, and stores a live key cannot connect with 422', async () => {
    const unknown = await create(c.sandboxKey, ['sandbox-protocol', 'no-such-store']);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('merchant_ids[1]');
    expect(unknown.body.error.message).toContain("'no-such-store'");
    for (const id of ['sandbox-protocol', 'amazon', 'glossier']) {
      const res = await create(c.liveKey, [id]);
      expect(res.status, id).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'MERCHANT_NOT_SUPPORTED', param: 'merchant_ids[0]' });
      expect(res.body.error.message).toContain(`'${id}'`);
    }
  });

  it('the sandbox public_token shortcut follows the same rule', async () => {
    const res = await as(c.svc, c.sandboxKey)('POST', '/v1/sandbox/public_token', {
      merchant_ids: ['target'],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'MERCHANT_NOT_SUPPORTED', param: 'merchant_ids[0]' });
    expect(res.body.error.message).not.toMatch(/\blive\b/i);
  });

  it('connects the sandbox major retailer through the hosted page', async () => {
    const approval = await create(c.sandboxKey, ['sandbox-megamart', 'sandbox-members']);
    expect(approval.status).toBe(201);
    const form = await openForm(approval.body.hosted_url);
    expect(form.checked).toEqual(['sandbox-megamart', 'sandbox-members']);
    const res = await submit(c.svc.url, '/hosted/approve', [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ...form.checked.map((id) => ['connect', id] as [string, string]),
      ['decision', 'approve'],
    ]);
    expect(res.status).toBe(303);
  });

  it('a token made before the check never shows the shopper a JSON error', async () => {
    const approval = await create(c.sandboxKey, ['sandbox-members']);
    // As an older server would have stored it.
    await c.handle.db.run("UPDATE approvals SET merchant_ids = ? WHERE status = 'pending'", [
      JSON.stringify(['amazon', 'sandbox-members']),
    ]);
    const form = await openForm(approval.body.hosted_url);
    expect(form.res.status).toBe(200);
    expect(form.checked).toEqual(['sandbox-members']);
    const res = await submit(c.svc.url, '/hosted/approve', [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['connect', 'amazon'],
      ['connect', 'sandbox-members'],
      ['decision', 'approve'],
    ]);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location') as string).searchParams.get('public_token')).toMatch(
      /^public-/,
    );
  });
});

describe('every answer on a hosted page is a page a shopper understands', () => {
  let c: Commerce;
  let fresh: () => Promise<string>;
  beforeAll(async () => {
    c = await startCommerce();
    fresh = async () =>
      (
        await as(c.svc, c.sandboxKey)('POST', '/v1/approval_tokens', {
          client_user_id: 'shopper',
          redirect_uri: 'https://app.example/callback',
        })
      ).body.hosted_url as string;
  });
  afterAll(() => c.close());

  const form = 'application/x-www-form-urlencoded';

  it('for bad links, used and expired tokens, bad forms and unknown paths', async () => {
    const used = await fresh();
    const usedForm = await openForm(used);
    await submit(c.svc.url, '/hosted/approve', [
      ...usedForm.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'decline'],
    ]);
    const expired = await fresh();
    const token = new URL(await fresh()).searchParams.get('token') as string;
    c.svc.clock.advance(31 * MINUTE);
    const live = new URL(await fresh()).searchParams.get('token') as string;
    const manyFields = 'a=&'.repeat(2000); // far more fields than a form has, well under the size limit

    const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
    // what, method, path, form body (urlencoded unless headers say otherwise), extra headers, status
    const cases: [string, string, string, string | undefined, Record<string, string>, number][] = [
      ['no token', 'GET', '/hosted/approve', undefined, {}, 404],
      ['unknown token', 'GET', '/hosted/approve?token=approval-sandbox-nope', undefined, {}, 404],
      ['bad escape', 'GET', '/hosted/approve?token=%ZZ', undefined, {}, 404],
      ['used token', 'GET', pathOf(used), undefined, {}, 410],
      ['expired token', 'GET', pathOf(expired), undefined, {}, 410],
      ['no decision', 'POST', '/hosted/approve', `token=${live}`, {}, 400],
      ['stale form', 'POST', '/hosted/approve', `token=${live}&decision=approve&form_token=x`, {}, 409],
      ['expired token posted', 'POST', '/hosted/approve', `token=${token}&decision=approve`, {}, 410],
      ['too many fields', 'POST', '/hosted/approve', manyFields, {}, 413],
      ['too large', 'POST', '/hosted/approve', `decision=${'x'.repeat(40_000)}`, {}, 413],
      [
        'unknown charset',
        'POST',
        '/hosted/approve',
        'decision=approve',
        { 'content-type': `${form}; charset=koi8-r` },
        415,
      ],
      [
        'gzip that is not',
        'POST',
        '/hosted/approve',
        'decision=approve',
        { 'content-encoding': 'gzip' },
        415,
      ],
      ['confirm, no token', 'GET', '/hosted/confirm', undefined, {}, 410],
      ['confirm, no decision', 'POST', '/hosted/confirm', 'x=1', {}, 400],
      [
        'confirm, unknown token',
        'POST',
        '/hosted/confirm',
        'token=confirm-sandbox-x&decision=approve',
        {},
        410,
      ],
      ['unknown page', 'GET', '/hosted/nope', undefined, {}, 404],
      ['odd case', 'GET', '/HOSTED/nope', undefined, {}, 404],
      ['other method', 'PUT', '/hosted/approve', undefined, {}, 404],
    ];
    for (const [what, method, path, body, headers, status] of cases) {
      const res = await raw(
        c.svc.url,
        method,
        path,
        body === undefined ? headers : { 'content-type': form, ...headers },
        body,
      );
      const shown = res.body.length > 200 ? `${res.body.slice(0, 200)}…` : res.body;
      expect(res.status, `${what}: ${shown}`).toBe(status);
      expectShopperPage(res, res.body, what);
    }
  });

  it('pages for a sandbox token say it is a test', async () => {
    const url = await fresh();
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Test mode (sandbox)');
    const res = await fetch(`${c.svc.url}/hosted/approve?token=${new URL(url).searchParams.get('token')}x`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Test mode (sandbox)');
  });
});

describe('the confirm page says what really happened', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('after the shopper approves the total, the order is not placed yet: the app places it next', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { rules: { confirm_above: 1000 } });
    const chk = (
      await call('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/price-4200-lamp`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    const form = await openForm(chk.next_action.url);
    const res = await submit(c.svc.url, '/hosted/confirm', [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'approve'],
    ]);
    const page = await res.text();
    expect(res.status).toBe(200);
    expectShopperPage(res, page, 'confirmed');
    const now = (await call('GET', `/v1/checkouts/${chk.id}`)).body;
    expect(now.status).toBe('ready_to_confirm');
    expect(page).toContain(`data-status="${now.status}"`);
    expect(page).not.toMatch(/Order confirmed|Order placed/);
    expect(page).toContain('not placed yet');
    expect(page).toContain(`$${(now.totals.total.amount / 100).toFixed(2)}`);
    expect(page).toContain('Test mode (sandbox)');
  });
});
