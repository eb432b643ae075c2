import { describe, expect, it } from 'vitest';
import { interleave, settledValue } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';
import { makeIdea, twoInstancesWithBrand } from './helpers.js';
import { ctxOf } from './mcp-helpers.js';

/** Drafts under concurrent requests on two instances (two handles on one SQLite file). */
describe('drafts under concurrent requests on two instances', () => {
  const pair = twoInstancesWithBrand();

  it('two drafts created for one idea and platform at once: one draft, and the other request gets 409 DRAFT_EXISTS, not a 500', async () => {
    const { a, b, brand } = pair;
    const idea = await makeIdea(a, brand.id, 'One draft per platform');
    const create = (svc: TestService, text: string) =>
      api(svc.url, 'POST', '/v1/drafts', {
        body: { brand_id: brand.id, idea_id: idea, platform: 'x', text },
      });
    const race = interleave(ctxOf(a).db, ctxOf(b).db);
    const [first, second] = await race.run(
      () => create(a, 'The first take on it.'),
      () => create(b, 'The second take on it.'),
    );
    expect(settledValue(first).status).toBe(201);
    expect(settledValue(second).status).toBe(409);
    expect(settledValue(second).body.error.code).toBe('DRAFT_EXISTS');
    const drafts = (await api(a.url, 'GET', `/v1/drafts?idea_id=${idea}`)).body.drafts as { id: string }[];
    expect(drafts.map((d) => d.id)).toEqual([settledValue(first).body.id]);
  });

  it('an edit and a regeneration of one draft at once: no version is lost or overwritten, the late one gets 409 DRAFT_CHANGED', async () => {
    const { a, b, brand } = pair;
    const idea = await makeIdea(a, brand.id, 'Versions in order');
    const made = await api(a.url, 'POST', '/v1/drafts', {
      body: { brand_id: brand.id, idea_id: idea, platform: 'linkedin', text: 'Version one, by hand.' },
    });
    expect(made.status).toBe(201);
    const race = interleave(ctxOf(a).db, ctxOf(b).db);
    const [edit, regenerate] = await race.run(
      () => api(a.url, 'PATCH', `/v1/drafts/${made.body.id}`, { body: { text: 'Version two, by hand.' } }),
      () => api(b.url, 'POST', '/v1/drafts/generate', { body: { idea_id: idea, platforms: ['linkedin'] } }),
    );
    expect(settledValue(edit).status).toBe(200);
    expect(settledValue(regenerate).status).toBe(409);
    expect(settledValue(regenerate).body.error.code).toBe('DRAFT_CHANGED');
    const detail = await api(a.url, 'GET', `/v1/drafts/${made.body.id}`);
    expect(detail.body.version).toBe(2);
    const v2 = await api(a.url, 'GET', `/v1/drafts/${made.body.id}/versions/2`);
    expect(v2.body.parts).toEqual([expect.objectContaining({ text: 'Version two, by hand.' })]);
  });
});
