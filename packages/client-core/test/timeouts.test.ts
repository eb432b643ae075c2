import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WINDOW_MS } from '../src/deadlines.js';
import { APIUserAbortError, ClientCore, TimeoutError } from '../src/index.js';
import { useTransport } from './helpers.js';

useTransport();

// The attempts' timeouts are shared deadlines (src/deadlines.ts). These tests hold them to
// what `timeoutMs` promises, over real HTTP where the socket matters: a hung request ends as a
// TimeoutError no sooner than timeoutMs and its socket is closed, every retry gets a full
// timeout of its own, a caller's abort ends only that call, and nothing is left holding the
// process once calls settle. Upper bounds on time are generous (seconds), never tight.

/** Requests the server got and has not answered, and how many of them the client closed. */
const hung: IncomingMessage[] = [];
let closedByClient = 0;
let hits = 0;

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  hits++;
  const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  if (req.url?.endsWith('/hang')) {
    hung.push(req);
    res.on('close', () => closedByClient++);
    return;
  }
  // The first request hangs; the retry is answered, 500 ms late.
  if (req.url?.endsWith('/hang-once')) {
    if (hits === 1) return void hung.push(req);
    return void setTimeout(answer, 500);
  }
  answer();
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(() => {
  for (const req of hung.splice(0)) req.socket.destroy();
  closedByClient = 0;
  hits = 0;
  vi.useRealTimers();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function core(config: { timeoutMs?: number; maxRetries?: number; fetch?: typeof fetch } = {}): ClientCore {
  return new ClientCore({
    baseUrl: base || 'https://api.test/v1',
    serviceClient: '@svc/test-client/1.2.3',
    maxRetries: 0,
    sleep: async () => {},
    ...config,
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the per-attempt timeout, over real HTTP', () => {
  it('ends a request the server never answers with TimeoutError, no sooner than timeoutMs, and closes its socket', async () => {
    // A second is long enough for the request to reach the server on a loaded machine, so the
    // server sees it and then sees the client close it.
    const started = performance.now();
    const error = await core({ timeoutMs: 1_000 })
      .request({ method: 'GET', path: '/hang' })
      .catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toContain('timed out after 1000 ms');
    // Timers round to whole milliseconds, so allow one below.
    expect(elapsed).toBeGreaterThanOrEqual(999);
    expect(elapsed).toBeLessThan(10_000);
    expect(hung).toHaveLength(1);
    await until(() => closedByClient === 1);
    expect(closedByClient).toBe(1);
  }, 20_000);

  it('gives each retry a full timeout of its own', async () => {
    // Attempt 1 hangs and times out; attempt 2 starts at once and is answered 500 ms in, which
    // only fits if its timeout started with it, not with the first attempt's.
    const result = await core({ timeoutMs: 1_000, maxRetries: 1 }).request({
      method: 'GET',
      path: '/hang-once',
    });
    expect(result).toEqual({ ok: true });
    expect(hits).toBe(2);
  });

  it("ends a call at once on the caller's abort, and only that call", async () => {
    const client = core({ timeoutMs: 60_000 });
    const caller = new AbortController();
    const aborted = client.request({ method: 'GET', path: '/hang', signal: caller.signal });
    const other = client.request({ method: 'GET', path: '/hang' }).catch((e: unknown) => e);
    await until(() => hung.length === 2);
    caller.abort(new Error('stop'));
    await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);
    await until(() => closedByClient === 1);
    expect(closedByClient).toBe(1);
    // The other call, in the same shared deadline, is still waiting on the server.
    const answered = await Promise.race([
      other,
      new Promise((resolve) => setTimeout(resolve, 50, 'waiting')),
    ]);
    expect(answered).toBe('waiting');
    for (const req of hung.splice(0)) req.socket.destroy();
    expect(await other).toBeInstanceOf(Error);
  });

  it('leaves no timer holding the process once its calls have settled', async () => {
    // Every timer made during the calls, and which were cleared: each must be cleared or unref'd.
    const made: NodeJS.Timeout[] = [];
    const cleared = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const setSpy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      ...args: Parameters<typeof realSet>
    ) => {
      const timer = realSet(...args);
      made.push(timer);
      return timer;
    }) as typeof realSet);
    const clearSpy = vi.spyOn(globalThis, 'clearTimeout').mockImplementation((timer) => {
      cleared.add(timer);
      realClear(timer);
    });
    try {
      const client = core({ timeoutMs: 45_000 });
      await client.request({ method: 'GET', path: '/ok' });
      await Promise.all([1, 2, 3].map(() => client.request({ method: 'GET', path: '/ok' })));
      const failed = await client
        .request({ method: 'GET', path: '/hang', timeoutMs: 30 })
        .catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(TimeoutError);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
    }
    expect(made.length).toBeGreaterThan(0);
    const holding = made.filter((timer) => !cleared.has(timer) && timer.hasRef());
    expect(holding).toEqual([]);
  });
});

describe('shared deadlines', () => {
  it('fire between timeoutMs and timeoutMs + WINDOW_MS after the attempt started, never sooner', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const hangs: typeof fetch = () => new Promise<Response>(() => {});
    const client = core({ fetch: hangs, timeoutMs: 1_000 });
    // The first call opens a window; the second joins it WINDOW_MS - 1 later.
    const first = client.request({ method: 'GET', path: '/a' }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(WINDOW_MS - 1);
    let secondDone = false;
    const second = client.request({ method: 'GET', path: '/b' }).catch((e: unknown) => {
      secondDone = true;
      return e;
    });
    await vi.advanceTimersByTimeAsync(1_000 - 1);
    expect(secondDone).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(await first).toBeInstanceOf(TimeoutError);
    expect(await second).toBeInstanceOf(TimeoutError);
  });

  it('are shared by the attempts of one window, and a later window gets its own', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const signals: AbortSignal[] = [];
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      signals.push(init?.signal as AbortSignal);
      return Response.json({ ok: true });
    };
    const client = core({ fetch, timeoutMs: 5_000 });
    await Promise.all([1, 2, 3].map(() => client.request({ method: 'GET', path: '/x' })));
    await vi.advanceTimersByTimeAsync(WINDOW_MS);
    await client.request({ method: 'GET', path: '/x' });
    expect(new Set(signals.slice(0, 3)).size).toBe(1);
    expect(signals[3]).not.toBe(signals[0]);
    expect(signals.some((signal) => signal.aborted)).toBe(false);
  });
});
