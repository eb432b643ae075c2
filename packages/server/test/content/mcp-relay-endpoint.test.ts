import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/start.js';

/** GET /v1/mcp-relay with chosen headers, from loopback. */
function relayAs(url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: '/v1/mcp-relay', headers }, (res) => {
      let data = '';
      res.on('data', (c) => {
        data += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The relay's command holds absolute paths of this machine (Node.js, the checkout, often a home
 * directory that names its user) and runs only here. With SERVICE_PUBLIC_API=all the content API
 * answers other machines too: they get `relay: null`, the shape of "no relay here".
 */
describe('GET /v1/mcp-relay with SERVICE_PUBLIC_API=all', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content', {
      config: { localOnly: false, content: { port: 3000, publicUrl: 'https://svc.example.com' } },
    });
  });
  afterAll(() => svc.close());

  it('gives the paths to a request made on this machine', async () => {
    const local = await relayAs(svc.url, { host: 'localhost' });
    expect(local.status).toBe(200);
    expect(local.body.relay.command).toBe(process.execPath);
    expect(local.body.relay.args[0]).toMatch(/svc-mcp\.js$/);
  });

  it('answers relay: null, no path, to a request from another machine', async () => {
    const remotes: Record<string, string>[] = [
      { host: 'svc.example.com', 'x-forwarded-for': '203.0.113.7' },
      { host: 'svc.example.com' },
    ];
    for (const headers of remotes) {
      const remote = await relayAs(svc.url, headers);
      expect(remote.status, JSON.stringify(headers)).toBe(200);
      expect(remote.body).toEqual({ relay: null });
    }
  });
});
