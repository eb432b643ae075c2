// With a wrong key, an MCP client that supports OAuth (mcp-remote, the Inspector) does not show
// the 401's message: it falls back to OAuth discovery and client registration instead. The
// registration 404 is what its user sees, so that answer must say what went wrong.

import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/start.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService('content');
});
afterAll(() => svc?.close());

/** The smallest provider that lets the SDK run its OAuth fallback, as mcp-remote's does. */
function provider(): OAuthClientProvider {
  return {
    redirectUrl: 'http://127.0.0.1:1/callback',
    clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'test' },
    clientInformation: () => undefined,
    saveClientInformation: () => undefined,
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: () => undefined,
    saveCodeVerifier: () => undefined,
    codeVerifier: () => 'v',
  };
}

it('a refused key sends an OAuth-capable MCP client to an error that names the key problem', async () => {
  const client = new Client({ name: 'oauth-fallback', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
    authProvider: provider(),
    requestInit: { headers: { authorization: 'Bearer svc_00000000000000000000000000000000' } },
  });
  const failure = await client.connect(transport).then(
    () => null,
    (err: unknown) => err,
  );
  expect(String(failure)).toMatch(/does not use OAuth/);
  expect(String(failure)).toMatch(/Authorization: Bearer svc_/);
});

it.each([
  ['POST', '/register'],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/oauth-protected-resource/mcp'],
])('%s %s is a 404 in the error shape that explains API keys', async (method, path) => {
  const res = await fetch(`${svc.url}${path}`, { method });
  expect(res.status).toBe(404);
  const body = await res.json();
  expect(body.error.code).toBe('ROUTE_NOT_FOUND');
  expect(body.error.message).toMatch(/does not use OAuth.*Authorization: Bearer svc_/);
});

it('other unknown paths keep the plain message', async () => {
  const body = await (await fetch(`${svc.url}/registered`)).json();
  expect(body.error.message).toBe('No route for GET /registered.');
});
