// Outside review of stop 36's lingering close. The threat: a request pipelined behind a refused
// one. The server answered "Connection: close", so by HTTP/1.1 (RFC 9112 §9.6) it MUST NOT process
// any further request on that connection, and the client will never read an answer to one. But the
// linger keeps the socket reading for 2 s with node's HTTP parser still on it, so a request that
// arrives in that time reached the routes: a POST's side effect happened, unanswered, and a client
// that retries what it never saw answered does it twice. The linger must only throw bytes away.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/start.js';

/** Sends a refused chunked POST /mcp, waits for its answer, then ends that body and pipelines `next`. */
function refusedThenPipelined(url: string, next: string) {
  const { port, hostname } = new URL(url);
  return new Promise<string>((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.allowHalfOpen = true;
    let answer = '';
    let sent = false;
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      if (!sent && answer.includes('\r\n\r\n')) {
        sent = true;
        socket.write(`0\r\n\r\n${next}`);
      }
    });
    socket.on('error', () => {});
    // The server's FIN: close our side too, so the connection ends once the server's linger sees it.
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve(answer));
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Type: application/json\r\nAuthorization: Bearer svc_wrong\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n`,
    );
  });
}

describe('a request pipelined behind a refused body', () => {
  let content: TestService;
  beforeAll(async () => {
    content = await startTestService('content');
  });
  afterAll(() => content?.close());

  it('is not processed: the refused answer said Connection: close', async () => {
    const body = JSON.stringify({ name: 'pipelined after a refusal' });
    const answer = await refusedThenPipelined(
      content.url,
      `POST /v1/brands HTTP/1.1\r\nHost: ${new URL(content.url).host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(answer.split('\r\n')[0]).toContain('401');
    expect(answer.toLowerCase()).toContain('connection: close');
    // The client read one answer only, and nothing was done for the request it never saw answered.
    expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    const brands = (await (await fetch(`${content.url}/v1/brands?limit=100`)).json()) as {
      brands: { name: string }[];
    };
    expect(brands.brands.map((b) => b.name)).not.toContain('pipelined after a refusal');
  });

  it('pipelining on a kept-alive connection is still served, every request answered in order', async () => {
    const { port, hostname, host } = new URL(content.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), hostname);
      let got = '';
      socket.on('data', (d) => {
        got += d.toString('latin1');
        if ((got.match(/HTTP\/1\.1 200/g) ?? []).length === 2) socket.end();
      });
      socket.on('close', () => resolve(got));
      socket.write(
        `GET /health HTTP/1.1\r\nHost: ${host}\r\n\r\nGET /health HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      );
    });
    expect(answer.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });
});
