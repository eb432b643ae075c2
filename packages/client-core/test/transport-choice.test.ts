import * as https from 'node:https';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from 'undici';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClientCore } from '../src/index.js';
import { useLoopback } from './loopback.js';
import { selfSignedCertificate } from './self-signed.js';

// Which transport a call takes (src/transport.ts), seen from the server: the node transport
// sends a User-Agent naming the client, Node's fetch sends `node`. The rule: a `fetch` option,
// always; else node:http on Node while the global fetch is still the one the module saw load;
// else (stubbed, patched, polyfilled) the global fetch, looked up per call. This file does not
// call useTransport: it checks the rule itself, in both of the suite's runs.

const NODE_AGENT = `@svc/test-client/1.2.3 node/${process.versions.node}`;

const { seen, base } = useLoopback((_req, _body, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});

const core = (config: { fetch?: typeof fetch } = {}) =>
  new ClientCore({ baseUrl: base(), serviceClient: '@svc/test-client/1.2.3', maxRetries: 0, ...config });

const agentSeen = () => seen.at(-1)?.headers['user-agent'];

afterEach(() => {
  vi.unstubAllGlobals();
  seen.length = 0;
});

describe('which transport a call takes', () => {
  it('on Node, with the global fetch untouched: node:http', async () => {
    await core().request({ method: 'GET', path: '/ok' });
    expect(agentSeen()).toBe(NODE_AGENT);
  });

  it('a fetch option: that fetch, always', async () => {
    const given = vi.fn((url: string | URL | Request, init?: RequestInit) => fetch(url, init));
    await core({ fetch: given as typeof fetch }).request({ method: 'GET', path: '/ok' });
    expect(given).toHaveBeenCalledTimes(1);
    expect(agentSeen()).toBe('node');
  });

  it('a global fetch stubbed after the client loaded: that fetch, looked up per call; restored, node:http again', async () => {
    const original = globalThis.fetch;
    const stub = vi.fn((url: string | URL | Request, init?: RequestInit) => original(url, init));
    const client = core();
    vi.stubGlobal('fetch', stub);
    await client.request({ method: 'GET', path: '/ok' });
    expect(stub).toHaveBeenCalledTimes(1);
    expect(agentSeen()).toBe('node');
    vi.unstubAllGlobals();
    await client.request({ method: 'GET', path: '/ok' });
    expect(stub).toHaveBeenCalledTimes(1);
    expect(agentSeen()).toBe(NODE_AGENT);
  });

  it("a global fetch stubbed before the client loaded is taken for the runtime's own, and bypassed: pass it as `fetch`", async () => {
    const original = globalThis.fetch;
    const stub = vi.fn((url: string | URL | Request, init?: RequestInit) => original(url, init));
    vi.stubGlobal('fetch', stub);
    vi.resetModules();
    const fresh = await import('../src/index.js');
    const client = new fresh.ClientCore({ baseUrl: base(), serviceClient: '@svc/test-client/1.2.3' });
    await client.request({ method: 'GET', path: '/ok' });
    expect(stub).not.toHaveBeenCalled();
    expect(agentSeen()).toBe(NODE_AGENT);
    const given = new fresh.ClientCore({
      baseUrl: base(),
      serviceClient: '@svc/test-client/1.2.3',
      fetch: stub,
    });
    await given.request({ method: 'GET', path: '/ok' });
    expect(stub).toHaveBeenCalledTimes(1);
  });

  it('without process.getBuiltinModule (Node before 20.16 / 22.3), or on Bun or Deno: fetch', async () => {
    const freshCall = async () => {
      vi.resetModules();
      const fresh = await import('../src/index.js');
      await new fresh.ClientCore({ baseUrl: base(), serviceClient: '@svc/test-client/1.2.3' }).request({
        method: 'GET',
        path: '/ok',
      });
      return agentSeen();
    };
    const getBuiltinModule = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule');
    Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true });
    try {
      expect(await freshCall()).toBe('node');
    } finally {
      Object.defineProperty(process, 'getBuiltinModule', getBuiltinModule as PropertyDescriptor);
    }
    for (const runtime of ['Bun', 'Deno']) {
      vi.stubGlobal(runtime, {});
      expect(await freshCall(), runtime).toBe('node');
      vi.unstubAllGlobals();
    }
    expect(await freshCall()).toBe(NODE_AGENT);
  });

  it('FormData and Blob bodies go through fetch, which encodes them; JSON and bytes through node:http', async () => {
    const form = new FormData();
    form.set('file', new Blob(['png']), 'a.png');
    await core().request({ method: 'POST', path: '/media', body: form });
    expect(agentSeen()).toBe('node');
    expect(seen.at(-1)?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    await core().request({ method: 'POST', path: '/media', body: new Blob(['x']) });
    expect(agentSeen()).toBe('node');
    await core().request({ method: 'POST', path: '/json', body: { a: 1 } });
    expect(agentSeen()).toBe(NODE_AGENT);
  });
});

describe('https on the node transport', () => {
  // fetch keeps its own CA store (undici), so only node:http's agent can be told to trust a
  // certificate made in the test; https through fetch is the runtime's, unchanged.
  it('uses https.globalAgent, its TLS settings included', async () => {
    const { key, cert } = selfSignedCertificate();
    const server = createHttpsServer({ key, cert }, (req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ agent: req.headers['user-agent'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agentOptions = https.globalAgent.options as { ca?: unknown };
    const before = agentOptions.ca;
    try {
      const client = new ClientCore({
        baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        serviceClient: '@svc/test-client/1.2.3',
        maxRetries: 0,
      });
      // Untrusted: the certificate is refused, as a ConnectionError saying why.
      await expect(client.request({ method: 'GET', path: '/ok' })).rejects.toThrow(/self-signed certificate/);
      agentOptions.ca = cert;
      await expect(client.request({ method: 'GET', path: '/ok' })).resolves.toEqual({ agent: NODE_AGENT });
    } finally {
      agentOptions.ca = before;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("a dispatcher the program installed for fetch (undici's setGlobalDispatcher)", () => {
  // A proxy, a test's MockAgent, or an Agent trusting a private CA shapes every fetch in the
  // process; node:http would route around it, so while one is installed calls go through fetch.
  let original: Dispatcher;
  beforeAll(async () => {
    // Node's own default dispatcher exists once anything has fetched.
    await fetch(`${base()}/warm`);
    original = getGlobalDispatcher();
  });
  afterEach(() => setGlobalDispatcher(original));

  it("Node's own default does not count, nor an Agent with only tuning options", async () => {
    await core().request({ method: 'GET', path: '/ok' });
    expect(agentSeen()).toBe(NODE_AGENT);
    setGlobalDispatcher(new Agent({ keepAliveTimeout: 1_000, pipelining: 1 }));
    await core().request({ method: 'GET', path: '/ok' });
    expect(agentSeen()).toBe(NODE_AGENT);
  });

  it("a MockAgent answers the client's calls, as it answers fetch", async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock
      .get(new URL(base()).origin)
      .intercept({ path: '/v1/ok', method: 'GET' })
      .reply(200, { mocked: true }, { headers: { 'content-type': 'application/json' } });
    setGlobalDispatcher(mock);
    await expect(core().request({ method: 'GET', path: '/ok' })).resolves.toEqual({ mocked: true });
    expect(seen).toHaveLength(0);
  });

  it('interceptors composed onto an Agent apply', async () => {
    setGlobalDispatcher(
      new Agent().compose(
        (dispatch) => (opts, handler) =>
          dispatch({ ...opts, headers: { ...(opts.headers as object), 'x-intercepted': 'yes' } }, handler),
      ),
    );
    await core().request({ method: 'GET', path: '/ok' });
    expect(agentSeen()).toBe('node');
    expect(seen.at(-1)?.headers['x-intercepted']).toBe('yes');
  });

  it('an Agent trusting a private CA: a self-hosted svc behind it is reached with that trust', async () => {
    const { key, cert } = selfSignedCertificate();
    const server = createHttpsServer({ key, cert }, (req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ agent: req.headers['user-agent'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      setGlobalDispatcher(new Agent({ connect: { ca: cert } }));
      const client = new ClientCore({
        baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        serviceClient: '@svc/test-client/1.2.3',
        maxRetries: 0,
      });
      await expect(client.request({ method: 'GET', path: '/ok' })).resolves.toEqual({ agent: 'node' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
