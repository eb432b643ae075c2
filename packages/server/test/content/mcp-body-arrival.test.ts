// POST /mcp reads a body that arrived with its headers in one `read()` (platform/http/body.ts,
// readArrived) and any other body through the stream, as before. Over a raw socket, so the test
// decides how the bytes arrive: whole with the headers, after them, in chunks, over the limit,
// not UTF-8, and two requests back to back on one kept-alive connection. Every way gives the
// same answer as the other.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/start.js';
import { makeKey } from './mcp-helpers.js';

const LIMIT = 2048;
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService('content', { config: { maxBodyBytes: LIMIT } });
  key = (await makeKey(svc, ['read'])).key;
});
afterAll(() => svc?.close());

const call = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'list_agents', arguments: {} },
  });

const head = (framing: string) =>
  `POST /mcp HTTP/1.1\r\nHost: ${new URL(svc.url).host}\r\nAuthorization: Bearer ${key}\r\n` +
  `Content-Type: application/json\r\nAccept: application/json\r\n${framing}\r\n`;

const sized = (body: string | Buffer) => `Content-Length: ${Buffer.byteLength(body)}\r\n`;

/** Reads whole HTTP responses (Content-Length framed) off a socket, in order. */
function responses(socket: Socket) {
  let buffered = Buffer.alloc(0);
  const waiting: ((r: { status: number; headers: string; body: string }) => void)[] = [];
  socket.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0 || waiting.length === 0) return;
      const headers = buffered.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
      buffered = buffered.subarray(end + 4 + length);
      waiting.shift()?.({ status: Number(headers.split(' ')[1]), headers, body });
    }
  });
  return () => new Promise<{ status: number; headers: string; body: string }>((r) => waiting.push(r));
}

async function open() {
  const url = new URL(svc.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((r) => socket.once('connect', r));
  return { socket, next: responses(socket) };
}

const tick = () => new Promise((r) => setTimeout(r, 30));

describe('an MCP body, however it arrives', () => {
  it('whole with the headers, after them, or in chunks: the same answer, on one kept-alive connection', async () => {
    const { socket, next } = await open();
    try {
      // With the headers, in one write.
      let answer = next();
      socket.write(head(sized(call(1))) + call(1));
      const whole = await answer;
      expect(whole.status).toBe(200);
      expect(whole.headers).not.toMatch(/transfer-encoding/i);
      const result = JSON.parse(whole.body).result;
      expect(result.structuredContent.agents.length).toBeGreaterThan(0);

      // The headers, then the body once the server has seen them.
      answer = next();
      socket.write(head(sized(call(2))));
      await tick();
      socket.write(call(2));
      const later = await answer;
      expect(later.status).toBe(200);
      expect(JSON.parse(later.body)).toEqual({ jsonrpc: '2.0', id: 2, result });

      // Chunked, in three pieces with pauses between them.
      answer = next();
      const body = call(3);
      socket.write(head('Transfer-Encoding: chunked\r\n'));
      for (const piece of [body.slice(0, 10), body.slice(10, 40), body.slice(40)]) {
        await tick();
        socket.write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`);
      }
      socket.write('0\r\n\r\n');
      const chunked = await answer;
      expect(chunked.status).toBe(200);
      expect(JSON.parse(chunked.body)).toEqual({ jsonrpc: '2.0', id: 3, result });

      // Two requests in one write: each is read as its own body.
      const first = next();
      const second = next();
      socket.write(head(sized(call(4))) + call(4) + head(sized(call(5))) + call(5));
      expect(JSON.parse((await first).body)).toEqual({ jsonrpc: '2.0', id: 4, result });
      expect(JSON.parse((await second).body)).toEqual({ jsonrpc: '2.0', id: 5, result });
    } finally {
      socket.destroy();
    }
  });

  it('over the limit, arrived whole without a declared length: refused as before', async () => {
    const { socket, next } = await open();
    try {
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { pad: 'x'.repeat(LIMIT) },
      });
      const answer = next();
      socket.write(
        `${head('Transfer-Encoding: chunked\r\n')}${Buffer.byteLength(big).toString(16)}\r\n${big}\r\n0\r\n\r\n`,
      );
      const refused = await answer;
      expect(refused.status).toBe(413);
      expect(refused.headers).toMatch(/\r\nconnection: close/i);
      expect(JSON.parse(refused.body).error.message).toContain(`limit of ${LIMIT} bytes`);
    } finally {
      socket.destroy();
    }
  });

  it('not UTF-8, arrived whole: a parse error, as before', async () => {
    const { socket, next } = await open();
    try {
      const bad = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]);
      const answer = next();
      socket.write(Buffer.concat([Buffer.from(head(sized(bad))), bad]));
      const refused = await answer;
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body).error).toMatchObject({ code: -32700 });
      expect(JSON.parse(refused.body).error.message).toContain('not valid UTF-8');
    } finally {
      socket.destroy();
    }
  });
});
