// A body refused with 413 after part of it was read (chunked, so no declared length to refuse it
// by) ended in a reset, not a clean close. The reader pauses the request when it counts past the
// limit, and node throws away only a body nobody began to read: the paused request stopped the
// parser, the socket stopped reading, and the linger (platform/http/lingering-close.ts) discarded
// nothing until its 2 s were up and it closed with the bytes unread. A client still writing then
// meets the reset, on some paths before it has read the 413. Both JSON readers took that path:
// the REST routes' and MCP's. closeAfterResponse (platform/http/body.ts) now resumes the request
// once answered, so the rest is discarded and the client's own close ends the linger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey } from '../content/mcp-helpers.js';
import { sendBodyThenClose } from '../helpers/huge-body.js';
import { startTestService, type TestService } from '../helpers/start.js';

describe('a body refused with 413 after part of it was read', () => {
  let content: TestService;
  beforeAll(async () => {
    content = await startTestService('content', { config: { seed: 'none' } });
  });
  afterAll(() => content?.close());
  const head = (path: string, headers = '') =>
    `POST ${path} HTTP/1.1\r\nHost: ${new URL(content.url).host}\r\nContent-Type: application/json\r\n${headers}`;

  it('a REST route answers 413, discards the rest and closes cleanly when the client does', async () => {
    const r = await sendBodyThenClose(content.url, head('/v1/brands'));
    expect(r.status).toContain('413');
    // The old code stopped reading after the 413 and closed with the body unread: a reset.
    expect(r.ended).toBe('closed');
  });

  it('MCP answers 413, discards the rest and closes cleanly when the client does', async () => {
    const { key } = await makeKey(content, ['read']);
    const r = await sendBodyThenClose(
      content.url,
      head('/mcp', `Accept: application/json, text/event-stream\r\nAuthorization: Bearer ${key}\r\n`),
    );
    expect(r.status).toContain('413');
    expect(r.ended).toBe('closed');
  });

  it('the server still answers afterwards', async () => {
    expect((await fetch(`${content.url}/health`)).status).toBe(200);
  });
});
