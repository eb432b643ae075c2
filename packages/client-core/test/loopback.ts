import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** What a loopback server saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * A real node:http server on 127.0.0.1 for the file, started before its tests and closed after,
 * recording each request (with its body) before `handler` answers it. `base` is its `/v1` root.
 */
export function useLoopback(
  handler: (req: IncomingMessage, body: Buffer, res: Parameters<RequestListener>[1]) => void,
): {
  seen: Seen[];
  base: () => string;
  server: Server;
} {
  const seen: Seen[] = [];
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { seen, base: () => base, server };
}
