// A refused upload's client reads the refusal, not a reset. When the server refuses a body the
// client is still sending and closes at once, the unread bytes make the kernel send a reset (RST),
// and a client still writing meets it before it reads the answer: CI's client saw an empty status
// line instead of 413 about one run in ten. The server now lingers (platform/http/lingering-close.ts):
// answer, FIN, discard what still arrives, close after at most LINGER_MS. These tests send from a
// client that never stops writing, and check both halves: the answer is read, and the linger ends.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/start.js';

const DATA = Buffer.alloc(256 * 1024, 0x20);
// Chunked, so the body never ends: a declared length is read to its end within the linger on
// loopback (1 GB in half a second here), and the connection would end with it, proving nothing.
const PIECE = Buffer.concat([Buffer.from(`${DATA.length.toString(16)}\r\n`), DATA, Buffer.from('\r\n')]);

/**
 * Sends `head` with a chunked body, then writes for as long as the socket lets it, one piece
 * per turn of the loop. Resolves with what was read and how the socket ended.
 */
function writeUntilClosed(url: string, head: string) {
  const { port, hostname } = new URL(url);
  return new Promise<{ answer: string; sawEnd: boolean; bytesAfterEnd: number; ended: string }>((resolve) => {
    const socket = net.connect(Number(port), hostname);
    // This client keeps writing after the server's FIN, as an uploading browser does.
    socket.allowHalfOpen = true;
    let answer = '';
    let sawEnd = false;
    let bytesAfterEnd = 0;
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('end', () => {
      sawEnd = true;
    });
    socket.on('error', () => {});
    socket.on('close', (hadError) =>
      resolve({ answer, sawEnd, bytesAfterEnd, ended: hadError ? 'reset' : 'closed' }),
    );
    socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
    const pump = () => {
      if (socket.destroyed) return;
      if (sawEnd) bytesAfterEnd += PIECE.length;
      if (socket.write(PIECE)) setImmediate(pump);
      else socket.once('drain', pump);
    };
    pump();
  });
}

describe('a refused body: the answer first, then a bounded linger', () => {
  let content: TestService;
  beforeAll(async () => {
    content = await startTestService('content');
  });
  afterAll(() => content?.close());

  it('a client that never stops sending reads the 401, then the server closes the connection', async () => {
    const r = await writeUntilClosed(
      content.url,
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(content.url).host}\r\nContent-Type: application/json\r\nAuthorization: Bearer svc_wrong\r\n`,
    );
    expect(r.answer.split('\r\n')[0]).toContain('401');
    expect(r.answer.toLowerCase()).toContain('connection: close');
    // A FIN after the answer (the client read it as the end of the stream), not a reset first.
    expect(r.sawEnd).toBe(true);
    // And the linger ended: the socket closed although the client never stopped writing (the
    // promise resolving is the proof; the bytes show the server kept reading for a while).
    expect(r.bytesAfterEnd).toBeGreaterThan(0);
  });

  it('the server still answers afterwards', async () => {
    const res = await fetch(`${content.url}/health`);
    expect(res.status).toBe(200);
  });
});
