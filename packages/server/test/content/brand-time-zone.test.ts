import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * A brand's time zone: an IANA name the app shows and picks the brand's times in. Named zones are
 * stored as ICU spells them; anything else is refused with 400 and changes nothing.
 */
describe('a brand’s time zone', () => {
  let svc: TestService;
  const brandCount = async () => (await api(svc.url, 'GET', '/v1/brands?limit=100')).body.brands.length;

  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('defaults to UTC, takes an IANA name on create and PATCH, and lists it', async () => {
    const plain = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Plain' } });
    expect(plain.status).toBe(201);
    expect(plain.body.time_zone).toBe('UTC');

    const tokyo = await api(svc.url, 'POST', '/v1/brands', {
      body: { name: 'Tokyo', time_zone: 'Asia/Tokyo' },
    });
    expect(tokyo.status).toBe(201);
    expect(tokyo.body.time_zone).toBe('Asia/Tokyo');
    const listed = (await api(svc.url, 'GET', '/v1/brands?limit=100')).body.brands;
    expect(listed.find((b: { id: string }) => b.id === tokyo.body.id).time_zone).toBe('Asia/Tokyo');

    // Another spelling of the same zone is stored as ICU spells it.
    const moved = await api(svc.url, 'PATCH', `/v1/brands/${plain.body.id}`, {
      body: { time_zone: 'europe/berlin' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.time_zone).toBe('Europe/Berlin');
    expect((await api(svc.url, 'GET', `/v1/brands/${plain.body.id}`)).body.time_zone).toBe('Europe/Berlin');

    // A rename leaves the zone alone.
    const renamed = await api(svc.url, 'PATCH', `/v1/brands/${plain.body.id}`, { body: { name: 'Plainer' } });
    expect(renamed.body).toMatchObject({ name: 'Plainer', time_zone: 'Europe/Berlin' });
  });

  it('refuses anything that is not an IANA zone name, on create and PATCH, and writes nothing', async () => {
    const brand = (
      await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Kept', time_zone: 'Asia/Tokyo' } })
    ).body;
    const before = await brandCount();
    for (const time_zone of [
      'Mars/Olympus_Mons',
      '+09:00',
      'GMT+9',
      '',
      'Asia/Tokyo; DROP TABLE brands',
      42,
    ]) {
      const created = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Refused', time_zone } });
      expect(created.status, String(time_zone)).toBe(400);
      expect(created.body.error.code).toBe('INVALID_REQUEST');
      expect(created.body.error.message).toMatch(/'time_zone'/);
      const patched = await api(svc.url, 'PATCH', `/v1/brands/${brand.id}`, {
        body: { name: 'Renamed', time_zone },
      });
      expect(patched.status, String(time_zone)).toBe(400);
      expect(patched.body.error.code).toBe('INVALID_REQUEST');
    }
    const created = await api(svc.url, 'POST', '/v1/brands', {
      body: { name: 'Refused', time_zone: 'Nowhere/Land' },
    });
    expect(created.body.error.message).toMatch(/IANA time zone name/);
    expect(await brandCount()).toBe(before);
    expect((await api(svc.url, 'GET', `/v1/brands/${brand.id}`)).body).toMatchObject({
      name: 'Kept',
      time_zone: 'Asia/Tokyo',
    });
  });
});
