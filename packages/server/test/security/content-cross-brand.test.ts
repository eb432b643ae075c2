// Twelfth pass (outside attack on stop 33): ids of one brand used in a request about another.
// Content has one workspace (no per-brand keys), so the rule is integrity, not secrecy: a request
// that names brand A and an object of brand B is refused and writes nothing. docs/security.md,
// "Twelfth pass".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBrand, makeDraft, makeIdea } from '../content/helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

describe('content: one brand’s ids in another brand’s request', () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof makeBrand>>;
  let b: Awaited<ReturnType<typeof makeBrand>>;
  beforeAll(async () => {
    svc = await startTestService('content');
    a = await makeBrand(svc);
    b = await makeBrand(svc);
  });
  afterAll(() => svc.close());

  /** Refused with `code`: a campaign of another brand is named as such, a channel is not found. */
  const refused = (res: { status: number; body: any }, what: string, code: string) =>
    expect(`${res.status} ${res.body.error?.code}`, `${what}: ${JSON.stringify(res.body)}`).toBe(code);

  it('an idea of A in a campaign of B, and a draft of A published or proposed on a channel of B', async () => {
    const campaignB = await api(svc.url, 'POST', '/v1/campaigns', {
      body: { brand_id: b.id, name: 'B launch' },
    });
    expect(campaignB.status, JSON.stringify(campaignB.body)).toBe(201);
    refused(
      await api(svc.url, 'POST', '/v1/ideas', {
        body: { brand_id: a.id, title: 'x', campaign_id: campaignB.body.id },
      }),
      'create an idea of A in B’s campaign',
      '422 BRAND_MISMATCH',
    );
    const ideaA = await makeIdea(svc, a.id);
    refused(
      await api(svc.url, 'PATCH', `/v1/ideas/${ideaA}`, { body: { campaign_id: campaignB.body.id } }),
      'move A’s idea into B’s campaign',
      '422 BRAND_MISMATCH',
    );
    expect((await api(svc.url, 'GET', `/v1/ideas/${ideaA}`)).body.campaign_id).toBeNull();

    const draftA = await makeDraft(svc, a.id);
    refused(
      await api(svc.url, 'POST', '/v1/posts', { body: { draft_id: draftA, channel_id: b.channels.x } }),
      'publish A’s draft on B’s channel',
      '404 NOT_FOUND',
    );
    refused(
      await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: draftA, channel_id: b.channels.x } }),
      'propose A’s draft for B’s channel',
      '404 NOT_FOUND',
    );
    const postsB = await api(svc.url, 'GET', `/v1/posts?brand_id=${b.id}`);
    expect(postsB.body.posts).toEqual([]);
    const approvals = await api(svc.url, 'GET', `/v1/approvals?brand_id=${b.id}`);
    expect(approvals.body.approvals ?? []).toEqual([]);
  });
});
