import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ClientCore, ConnectionError } from '../src/index.js';
import { useTransport } from './helpers.js';

useTransport();

/** A loopback port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a client pointed at a server that is not running', () => {
  it('says which URL it tried, and why, in the message itself', async () => {
    const port = await closedPort();
    const core = new ClientCore({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      serviceClient: '@svc/test-client/1.2.3',
      maxRetries: 0,
    });
    const error = await core
      .request({ method: 'GET', path: '/brands', query: { secret_hint: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    const { message } = error as ConnectionError;
    expect(message).toContain(`GET http://127.0.0.1:${port}/v1/brands`);
    expect(message).toContain('ECONNREFUSED');
    expect(message).toContain(`Is the server running at http://127.0.0.1:${port}`);
    expect(message).not.toContain('secret_hint');
  });
});
