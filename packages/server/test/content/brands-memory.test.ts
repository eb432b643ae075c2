import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeDraft } from './helpers.js';

describe('brands and Brand Memory', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('creates, reads, renames, lists with channels, and deletes a brand', async () => {
    const created = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Acme' } });
    expect(created.status).toBe(201);
    expect(created.body.memory.voice).toEqual({ summary: '', do: [], avoid: [], banned_words: [] });
    const id = created.body.id;
    await api(svc.url, 'POST', `/v1/brands/${id}/channels/connect`, { body: { platform: 'x' } });
    const list = await api(svc.url, 'GET', '/v1/brands?limit=1');
    expect(list.body).toMatchObject({ has_more: false, next_after: null });
    expect(list.body.brands[0].channels[0].platform).toBe('x');
    const renamed = await api(svc.url, 'PATCH', `/v1/brands/${id}`, { body: { name: 'Acme Co' } });
    expect(renamed.body.name).toBe('Acme Co');
    expect((await api(svc.url, 'DELETE', `/v1/brands/${id}`)).body).toEqual({ id, deleted: true });
    expect((await api(svc.url, 'GET', `/v1/brands/${id}`)).status).toBe(404);
  });

  it('pages brands with an opaque cursor', async () => {
    for (const n of ['P1', 'P2', 'P3']) await api(svc.url, 'POST', '/v1/brands', { body: { name: n } });
    const first = await api(svc.url, 'GET', '/v1/brands?limit=2');
    expect(first.body.brands).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await api(svc.url, 'GET', `/v1/brands?limit=2&after=${first.body.next_after}`);
    const ids = [...first.body.brands, ...second.body.brands].map((b: any) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
    const bad = await api(svc.url, 'GET', '/v1/brands?after=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_CURSOR');
    expect((await api(svc.url, 'GET', '/v1/brands?limit=101')).status).toBe(400);
  });

  it('replaces memory lists on PATCH and keeps evidence of unchanged rules', async () => {
    const brand = await makeBrand(svc);
    const draftId = await makeDraft(svc, brand.id);
    await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
      body: { from: draftId, as: 'do', note: 'Lead with an example' },
    });
    const patched = await api(svc.url, 'PATCH', `/v1/brands/${brand.id}`, {
      body: {
        memory: { voice: { do: ['Lead with an example', 'Be brief'], banned_words: ['Hype', 'hype'] } },
      },
    });
    expect(patched.status).toBe(200);
    const rules = patched.body.memory.voice.do;
    expect(rules.map((r: any) => r.text)).toEqual(['Lead with an example', 'Be brief']);
    expect(rules[0].evidence[0]).toMatchObject({ kind: 'draft', id: draftId });
    expect(patched.body.memory.voice.banned_words).toEqual(['hype']);
    expect(patched.body.memory.products).toHaveLength(1);
  });

  it('adds and removes knowledge notes', async () => {
    const brand = await makeBrand(svc, { channels: [] });
    const added = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/knowledge`, {
      body: { title: 'Pricing', body: '$6 per person' },
    });
    expect(added.status).toBe(201);
    expect(added.body.note).toMatchObject({ kind: 'note', title: 'Pricing', source: null });
    const removed = await api(svc.url, 'DELETE', `/v1/brands/${brand.id}/memory/items/${added.body.note.id}`);
    expect(removed.body.knowledge).toHaveLength(0);
    expect((await api(svc.url, 'DELETE', `/v1/brands/${brand.id}/memory/items/mem_nope`)).status).toBe(404);
  });

  describe('memory save and preview', () => {
    let brand: { id: string; channels: Record<string, string> };
    let postId: string;
    let signalId: string;
    let draftId: string;
    beforeAll(async () => {
      brand = await makeBrand(svc);
      draftId = await makeDraft(
        svc,
        brand.id,
        'linkedin',
        'Our Monday meeting took 50 minutes. Now it takes 12.',
      );
      const post = await api(svc.url, 'POST', '/v1/posts', {
        body: {
          channel_id: brand.channels.x,
          text: 'What if standups were written? We tried it for a month.',
        },
      });
      postId = post.body.id;
      signalId = (
        await api(svc.url, 'POST', `/v1/brands/${brand.id}/signals`, {
          body: { kind: 'question', title: 'How to write a decision log?' },
        })
      ).body.id;
    });

    it('previews without writing', async () => {
      const before = await api(svc.url, 'GET', `/v1/brands/${brand.id}/memory`);
      const preview = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/preview`, {
        body: { from: { kind: 'post', id: postId }, as: 'example_post' },
      });
      expect(preview.status).toBe(200);
      expect(preview.body.saved).toBe(false);
      expect(preview.body.change).toMatchObject({ op: 'add', target: 'example_posts' });
      expect(preview.body.memory.example_posts).toHaveLength(before.body.example_posts.length + 1);
      const after = await api(svc.url, 'GET', `/v1/brands/${brand.id}/memory`);
      expect(after.body).toEqual(before.body);
    });

    it('saves a post as an example, a signal as knowledge, a draft excerpt, and rules with evidence', async () => {
      const example = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: postId, as: 'example_post' },
      });
      expect(example.body.change.item).toMatchObject({ platform: 'x', source: { kind: 'post', id: postId } });
      expect(example.body.change.item.source.url).toMatch(/^https:\/\/sandbox\.svc\.local\//);

      const note = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: signalId, as: 'knowledge', note: 'Customers keep asking' },
      });
      expect(note.body.change.item).toMatchObject({ kind: 'note', title: 'How to write a decision log?' });
      expect(note.body.change.item.body).toContain('Note: Customers keep asking');

      const excerpt = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: draftId, as: 'excerpt', text: 'Now it takes 12.' },
      });
      expect(excerpt.body.change.item).toMatchObject({ kind: 'excerpt', body: 'Now it takes 12.' });
      const notInSource = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: draftId, as: 'excerpt', text: 'never said this' },
      });
      expect(notInSource.status).toBe(422);
      expect(notInSource.body.error.code).toBe('EXCERPT_NOT_IN_SOURCE');

      const rule = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: postId, as: 'avoid', note: 'Vague openers' },
      });
      expect(rule.body.change).toMatchObject({ op: 'add', target: 'voice.avoid' });
      const again = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: signalId, as: 'avoid', note: 'vague openers' },
      });
      expect(again.body.change.op).toBe('add_evidence');
      expect(again.body.change.item.evidence.map((e: any) => e.kind)).toEqual(['post', 'signal']);
      const noText = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: postId, as: 'do' },
      });
      expect(noText.body.error.code).toBe('RULE_TEXT_REQUIRED');
    });

    it('saves a reply and a reply theme after the sandbox clock grows replies', async () => {
      await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 30 } });
      const replies = await api(svc.url, 'GET', `/v1/posts/${postId}/replies`);
      const conv = await api(svc.url, 'GET', `/v1/brands/${brand.id}/conversation`);
      if (replies.body.replies.length > 0) {
        const r = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
          body: { from: replies.body.replies[0].id, as: 'knowledge' },
        });
        expect(r.body.change.item.source.kind).toBe('reply');
        const t = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
          body: { from: conv.body.themes[0].id, as: 'knowledge' },
        });
        expect(t.body.change.item.source.kind).toBe('reply_theme');
      }
      const missingTheme = await api(svc.url, 'POST', `/v1/brands/${brand.id}/memory/save`, {
        body: { from: { kind: 'reply_theme', id: `theme_question_brd_other` }, as: 'knowledge' },
      });
      expect(missingTheme.status).toBe(404);
    });

    it('refuses sources of another brand, unknown prefixes and bad bodies, writing nothing', async () => {
      const other = await makeBrand(svc, { channels: [] });
      const before = await api(svc.url, 'GET', `/v1/brands/${other.id}/memory`);
      const cross = await api(svc.url, 'POST', `/v1/brands/${other.id}/memory/save`, {
        body: { from: postId, as: 'knowledge' },
      });
      expect(cross.status).toBe(404);
      const unknown = await api(svc.url, 'POST', `/v1/brands/${other.id}/memory/save`, {
        body: { from: 'xyz_1', as: 'knowledge' },
      });
      expect(unknown.body.error.code).toBe('UNKNOWN_SOURCE');
      const badAs = await api(svc.url, 'POST', `/v1/brands/${other.id}/memory/save`, {
        body: { from: postId, as: 'poem' },
      });
      expect(badAs.status).toBe(400);
      const extra = await api(svc.url, 'POST', `/v1/brands/${other.id}/memory/save`, {
        body: { from: postId, as: 'knowledge', colour: 'red' },
      });
      expect(extra.body.error.code).toBe('INVALID_REQUEST');
      expect((await api(svc.url, 'GET', `/v1/brands/${other.id}/memory`)).body).toEqual(before.body);
    });
  });

  it('refuses product links that are not http(s), on create and on PATCH, and writes nothing', async () => {
    const brand = await makeBrand(svc, { channels: [] });
    const before = (await api(svc.url, 'GET', `/v1/brands/${brand.id}/memory`)).body;
    // A link a person clicks in the app or an agent copies into a post: a script or inline
    // document there runs in whoever opens it, so only web addresses are kept.
    for (const url of [
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'ftp://files.example.com/brochure.pdf',
      'file:///etc/passwd',
    ]) {
      const product = { name: 'Field notebook', url };
      const patched = await api(svc.url, 'PATCH', `/v1/brands/${brand.id}`, {
        body: { memory: { products: [product] } },
      });
      expect(patched.status, url).toBe(400);
      expect(patched.body.error.code).toBe('INVALID_REQUEST');
      expect(patched.body.error.message).toMatch(/'memory\.products\.0\.url' is invalid/);
      expect(patched.body.error.message).toMatch(/http:\/\/ or https:\/\//);
      const created = await api(svc.url, 'POST', '/v1/brands', {
        body: { name: 'Refused', memory: { products: [product] } },
      });
      expect(created.status, url).toBe(400);
    }
    expect((await api(svc.url, 'GET', `/v1/brands/${brand.id}/memory`)).body).toEqual(before);
    const names = (await api(svc.url, 'GET', '/v1/brands?limit=100')).body.brands.map((b: any) => b.name);
    expect(names).not.toContain('Refused');

    const ok = await api(svc.url, 'PATCH', `/v1/brands/${brand.id}`, {
      body: {
        memory: {
          products: [
            { name: 'Field notebook', url: 'https://fieldnote.example/notebook' },
            { name: 'Pencil', url: 'http://fieldnote.example/pencil' },
            { name: 'Gift card', url: null },
          ],
        },
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.memory.products.map((p: any) => p.url)).toEqual([
      'https://fieldnote.example/notebook',
      'http://fieldnote.example/pencil',
      null,
    ]);
  });

  it('validates brand bodies', async () => {
    expect((await api(svc.url, 'POST', '/v1/brands', { body: {} })).body.error.message).toMatch(
      /'name' is required/,
    );
    expect((await api(svc.url, 'POST', '/v1/brands', { body: { name: 42 } })).status).toBe(400);
    expect(
      (await api(svc.url, 'POST', '/v1/brands', { body: { name: 'x', owner: 'me' } })).body.error.message,
    ).toMatch(/owner/);
    expect((await api(svc.url, 'PATCH', '/v1/brands/brd_missing', { body: { name: 'x' } })).status).toBe(404);
    expect((await api(svc.url, 'DELETE', '/v1/brands/brd_missing')).body.error.code).toBe('NOT_FOUND');
  });
});
