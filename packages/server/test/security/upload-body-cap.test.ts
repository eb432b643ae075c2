// Thirteenth pass (outside attack on stop 34): a multipart upload that never opens a part.
// busboy's limits count what is inside a part (the file's bytes, each field's); bytes before the
// first boundary (the preamble) belong to no part, and the JSON body guard skips the upload route
// (it parses multipart itself). So `POST /v1/brands/:id/media` declaring 1 GB of preamble was read
// in full (250 MB in 3 s here, the request never answered until the client stopped), and a chunked
// one for as long as the client sent it. Now the whole body is held to the largest file plus 1 MiB:
// a declared length over it is a 413 before a byte is read, a chunked body is counted as it comes,
// and either way the connection is closed after the answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MediaTestService, startMediaService } from '../content/media-harness.js';
import { sendHugeBody } from '../helpers/huge-body.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const head = (url: string, path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: multipart/form-data; boundary=zz\r\n`;

describe('an upload body held to its limit', () => {
  let content: TestService;
  let small: MediaTestService;
  let brandId: string;
  beforeAll(async () => {
    [content, small] = await Promise.all([
      startTestService('content'),
      // Small caps so a chunked body passes its limit within what the test sends.
      startMediaService({ mediaLimits: { imageMaxBytes: 256 * 1024, videoMaxBytes: 512 * 1024 } }),
    ]);
    brandId = (await api(content.url, 'POST', '/v1/brands', { body: { name: 'Uploads' } })).body.id;
    await small.addBrand('brd_main');
  });
  afterAll(() => Promise.all([content?.close(), small?.close()]));

  it('a declared 1 GB is refused with 413 before it is read, and the connection closed', async () => {
    const r = await sendHugeBody(content.url, head(content.url, `/v1/brands/${brandId}/media`));
    expect(r.status).toContain('413');
    expect(r.outcome).toBe('closed');
  });

  it('a chunked body of preamble only is refused with 413 once past the limit, and closed', async () => {
    const r = await sendHugeBody(small.url, head(small.url, '/v1/brands/brd_main/media'), 'chunked');
    expect(r.status).toContain('413');
    expect(r.outcome).toBe('closed');
  });

  it('both servers still answer, and nothing was stored', async () => {
    const listed = await api(content.url, 'GET', `/v1/brands/${brandId}/media`);
    expect(listed.status).toBe(200);
    expect(listed.body.media).toEqual([]);
    const other = await api(small.url, 'GET', '/v1/brands/brd_main/media');
    expect(other.status).toBe(200);
    expect(other.body.media).toEqual([]);
  });
});
