// Ninth pass (outside attack on stop 30): a webhook receiver that fights back. Each attempt holds
// one of the dispatcher's slots (16 per endpoint, 256 in all) until it settles, so a receiver
// that answers 200 at once and then drips its body for ever, or sends headers without end, must
// not hold one past the delivery timeout. The sender over real HTTP against such receivers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PER_ENDPOINT_CONCURRENCY } from '../../src/commerce/webhooks/dispatcher.js';
import { sendSigned } from '../../src/commerce/webhooks/sender.js';

const servers: (Server | TcpServer)[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: Server | TcpServer): Promise<string> {
  servers.push(server);
  server.on('connection', (s: Socket) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

const send = (url: string) =>
  sendSigned(url, 'whsec_test', '{"id":"evt_1"}', new Date('2026-01-05T09:00:00Z'), {
    allowPrivate: true,
    timeoutMs: 300,
    connections: PER_ENDPOINT_CONCURRENCY,
  });

describe('webhook sender against a hostile receiver', () => {
  it('200 at once, then a body that drips for ever: the attempt settles and the connection is closed', async () => {
    let closed = false;
    const url = await listen(
      createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('.'), 20);
        res.on('close', () => {
          clearInterval(drip);
          closed = true;
        });
      }),
    );
    const outcome = await send(url);
    // The status came before the body stalled: it counts, and the slot is free.
    expect(outcome.status).toBe(200);
    await expect.poll(() => closed).toBe(true);
  });

  it('a body past 64 KiB is not read to its end', async () => {
    let written = 0;
    const url = await listen(
      createServer((req, res) => {
        req.resume();
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (written < 64 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
          if (written < 64 * 1024 * 1024) res.once('drain', pump);
          else res.end();
        };
        pump();
      }),
    );
    const outcome = await send(url);
    expect(outcome.status).toBe(200);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('headers that never end: the attempt fails as a timeout, not a hang', async () => {
    const url = await listen(
      createTcpServer((socket) => {
        socket.write('HTTP/1.1 200 OK\r\n');
        const drip = setInterval(() => socket.write('x-pad: 1\r\n'), 20);
        socket.on('close', () => clearInterval(drip));
        socket.on('error', () => clearInterval(drip));
      }),
    );
    const outcome = await send(url);
    expect(outcome.ok).toBe(false);
    expect(outcome.status).toBeNull();
  });

  it('a redirect to an internal address is a failure, never followed', async () => {
    let followed = false;
    const target = await listen(
      createServer((_req, res) => {
        followed = true;
        res.end();
      }),
    );
    const url = await listen(
      createServer((req, res) => {
        req.resume();
        res.writeHead(307, { location: target });
        res.end();
      }),
    );
    const outcome = await send(url);
    expect(outcome).toMatchObject({ ok: false, status: 307 });
    expect(outcome.error).toContain('not followed');
    expect(followed).toBe(false);
  });
});
