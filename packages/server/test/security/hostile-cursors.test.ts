// Thirteenth pass (outside attack on stop 34): a client writes its own paging cursor. A cursor is
// base64url JSON of the last row's sort key, and the approvals and memory-proposals queues sort by
// a whole-number rank first. On PostgreSQL a rank of "x", 1.5 or 1e999 (Infinity) failed the
// BIGINT comparison: the list answered 500 INTERNAL_ERROR and logged a server fault, where SQLite
// answered 200. Every content list now takes only what it could have returned (400 INVALID_CURSOR),
// the same on both engines. Real cursors still page: posts-approvals and the list tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** A cursor from its JSON text as written: JSON.stringify would write 1e999 (Infinity) as null. */
const cursor = (keyText: string) => Buffer.from(keyText).toString('base64url');

type Answer = { status: number; body: any; headers: Headers };

const notACursor = (res: Answer) => {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'INVALID_CURSOR', param: 'after' });
  expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
};

const AT = '"2026-11-27T00:00:00.000Z"';
/** Ranked keys no list returns: a rank that is not a whole number, or a number where text goes. */
const BAD_RANKED_KEYS = [
  `["x", ${AT}, "apr_x"]`,
  `[1.5, ${AT}, "apr_x"]`,
  `[1e999, ${AT}, "apr_x"]`,
  `[-1e999, ${AT}, "apr_x"]`,
  `[1e20, ${AT}, "apr_x"]`,
  '[1, 5, "apr_x"]',
  `[1, ${AT}, 7]`,
  `[null, ${AT}, "apr_x"]`,
];

/** Keys of the text-sorted lists with a number or null where a timestamp or an id goes. */
const BAD_TEXT_KEYS = ['[1e999, "x"]', `[${AT}, 3]`, '[null, "x"]'];

describe('a paging cursor the client wrote', () => {
  let content: TestService;
  beforeAll(async () => {
    content = await startTestService('content');
  });
  afterAll(() => content?.close());

  it('ranked lists (approvals, memory proposals): 400 INVALID_CURSOR, never a 500', async () => {
    for (const path of ['/v1/approvals', '/v1/memory-proposals']) {
      for (const key of BAD_RANKED_KEYS)
        notACursor(await api(content.url, 'GET', `${path}?after=${cursor(key)}`));
    }
  });

  it('text-sorted lists: a number or null in the key is not a cursor either', async () => {
    for (const path of [
      '/v1/posts',
      '/v1/brands',
      '/v1/ideas',
      '/v1/drafts',
      '/v1/campaigns',
      '/v1/mcp-calls',
    ]) {
      for (const key of BAD_TEXT_KEYS)
        notACursor(await api(content.url, 'GET', `${path}?after=${cursor(key)}`));
    }
  });
});
