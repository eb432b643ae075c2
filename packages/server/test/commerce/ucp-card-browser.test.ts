import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { type FakeTokenizer, startTokenizer } from '../fakes/ucp-tokenizer.js';
import { useBrowser } from '../helpers/browser.js';
import { startTestService } from '../helpers/start.js';
import { storedBytes } from '../helpers/stored-bytes.js';
import { makeKey } from './helpers.js';
import { liveUser, offerAndCheckout, ucpStores } from './ucp-helpers.js';

/**
 * The tokenization handler end to end in a real Chromium: the buyer types a test card on the
 * hosted pay page, its script sends it to the tokenizer (a CORS request the page's CSP allows to
 * that one origin), the store is completed with the token and charges the card behind it. Then
 * every file of the data directory (the SQLite database, its WAL and shared memory) and every log
 * line is searched: neither the card number nor the token is anywhere.
 */
describe('paying by card on the hosted page, in a real browser', () => {
  const browser = useBrowser();
  const store = ucpStores();
  const tokenizers: FakeTokenizer[] = [];
  afterEach(async () => {
    for (const t of tokenizers.splice(0)) {
      await t.close();
      expect(t.violations, 'tokenization API violations').toEqual([]);
    }
  });

  it('types a test card, completes the purchase, and leaves no card number or token in the data files or logs', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const svc = await startTestService('commerce', {
      config: { storesAllowPrivate: true } as Partial<Config>,
      logger,
    });
    try {
      const liveKey = await makeKey(svc, 'live');
      const { call } = await liveUser({ svc, liveKey });
      const t = await startTokenizer({ host: '127.0.0.9', allowOrigin: new URL(svc.url).origin });
      tokenizers.push(t);
      const s = await store({ tokenizer: { endpoint: t.endpoint, identity: t.identity } });
      const checkout = await offerAndCheckout(call, s);
      expect(checkout.next_action.type).toBe('card_payment');

      const page = await browser().page();
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') refused.push(m.text());
      });
      await page.goto(checkout.next_action.url);
      await page.getByLabel('Name on card').fill('Ada Lovelace');
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry month (1-12)').fill('12');
      await page.getByLabel('Expiry year').fill('2030');
      await page.getByLabel('Security code').fill('123');
      const answered = page.waitForResponse(
        (res) => res.url().endsWith('/hosted/pay') && res.request().method() === 'POST',
      );
      await page.getByRole('button', { name: /^Pay / }).click();
      await answered.catch(async (err) => {
        throw new Error(
          `${err}: ${await page.locator('[data-pay-status]').textContent()} ${refused.join(' ')}`,
        );
      });
      await page.waitForLoadState();
      expect(await page.locator('h1').textContent()).toBe('Order placed');
      expect(refused).toEqual([]);

      const done = await call('GET', `/v1/checkouts/${checkout.id}`);
      expect(done.body.status).toBe('completed');
      expect(s.orders).toHaveLength(1);
      expect(s.detokenized[0]?.card).toMatchObject({ number: '4242424242424242', expiry_month: 12 });
      const [token] = [...t.tokens.keys()];
      expect(token).toMatch(/^tok_/);
      // The browser, not svc, called the tokenizer.
      expect(t.requests[0]).toMatchObject({ path: '/tokenize', origin: new URL(svc.url).origin });

      const secrets = ['4242424242424242', '4242 4242 4242 4242', token as string];
      const files = await storedBytes(svc);
      expect(files.map((f) => f.name)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^(commerce\.sqlite|table checkouts)$/)]),
      );
      for (const f of files) {
        for (const secret of secrets) expect(f.bytes.includes(secret), `${secret} in ${f.name}`).toBe(false);
      }
      const logs = lines.join('');
      expect(logs).toContain('/hosted/pay');
      for (const secret of secrets) expect(logs).not.toContain(secret);
    } finally {
      await svc.close();
    }
    // A browser launch and a whole purchase on a shared 2-core machine: the suite's 20 s is too tight.
  }, 60_000);
});
