import { spawnSync } from 'node:child_process';
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { ManualClock, MINUTE } from '../../src/platform/clock.js';
import { AppError } from '../../src/platform/errors.js';
import {
  canonicalJson,
  idempotency,
  idempotentRequestOf,
  memoryIdempotencyStorage,
} from '../../src/platform/http/idempotency.js';
import type { RouteResult } from '../../src/platform/http/mount.js';
import { pidSpaceHere } from '../../src/platform/instance.js';

type Auth = { user: { id: string } };

function setup() {
  const clock = new ManualClock();
  const storage = memoryIdempotencyStorage();
  const wrap = idempotency<Auth>({
    storage,
    clock,
    owner: 'elsewhere/1/inst_test',
    identify: ({ auth }) => ({ scope: 'key_1', principal: (auth as { id: string }).id }),
  });
  const call = (
    opts: { key?: string; body?: unknown; user?: string; path?: string; method?: 'post' | 'get' },
    run: (req: Request) => Promise<RouteResult>,
  ) => {
    const req = {
      get: (h: string) => (h.toLowerCase() === 'idempotency-key' ? opts.key : undefined),
      originalUrl: opts.path ?? '/v1/x',
      path: opts.path ?? '/v1/x',
    } as unknown as Request;
    return wrap(
      {
        route: { method: opts.method ?? 'post', path: opts.path ?? '/v1/x' } as never,
        input: {
          params: undefined,
          query: undefined,
          body: opts.body ?? {},
          auth: { id: opts.user ?? 'usr_1' },
          requestId: `req_${Math.random()}`,
          req,
        },
      },
      () => run(req),
    );
  };
  return { clock, storage, call };
}

const ok =
  (body: unknown): (() => Promise<RouteResult>) =>
  async () => ({ status: 200, body, headers: { 'X-A': '1' } });

describe('idempotency engine', () => {
  it('canonicalizes JSON with sorted keys', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('runs once and replays with headers', async () => {
    const { call } = setup();
    let runs = 0;
    const run = async () => ({ status: 201, body: { n: ++runs }, headers: { 'X-A': '1' } });
    const a = await call({ key: 'k' }, run);
    const b = await call({ key: 'k' }, run);
    expect(runs).toBe(1);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(b.headers).toMatchObject({ 'X-A': '1', 'Idempotent-Replayed': 'true' });
  });

  it('skips GET and requests without a key', async () => {
    const { call, storage } = setup();
    await call({}, ok(1));
    await call({ key: 'k', method: 'get' }, ok(1));
    expect(storage.records.size).toBe(0);
  });

  it('refuses a different fingerprint and a busy key', async () => {
    const { call } = setup();
    let release!: () => void;
    const slow = call(
      { key: 'k', body: { a: 1 } },
      () =>
        new Promise((r) => {
          release = () => r({ status: 200, body: 1, headers: {} });
        }),
    );
    await new Promise((r) => setTimeout(r, 5));
    await expect(call({ key: 'k', body: { a: 1 } }, ok(2))).rejects.toMatchObject({
      status: 409,
      code: 'IDEMPOTENCY_KEY_IN_USE',
    });
    await expect(call({ key: 'k', body: { a: 2 } }, ok(2))).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
    });
    await expect(call({ key: 'k', body: { a: 1 }, user: 'usr_2' }, ok(2))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    release();
    await slow;
  });

  it('takes over a key whose lock expired (a crash) and forgets keys after the window', async () => {
    const { call, clock, storage } = setup();
    await storage.insert({
      scope: 'key_1',
      key: 'k',
      fingerprint: 'x',
      state: 'in_flight',
      lockedUntil: new Date(clock.now().getTime() + MINUTE).toISOString(),
      expiresAt: new Date(clock.now().getTime() + 1000 * MINUTE).toISOString(),
      response: null,
      requestId: 'req_dead',
      createdAt: clock.now().toISOString(),
      owner: 'elsewhere/1/inst_other',
    });
    // The stored fingerprint differs, so it is refused as a different request even when unlocked.
    await expect(call({ key: 'k' }, ok(1))).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const first = await call({ key: 'fresh' }, ok('a'));
    const rec = storage.records.get('key_1\u0000fresh');
    if (rec) storage.records.set('key_1\u0000fresh', { ...rec, state: 'in_flight', response: null });
    await expect(call({ key: 'fresh' }, ok('b'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    clock.advance(MINUTE + 1);
    expect((await call({ key: 'fresh' }, ok('b'))).body).toBe('b');
    clock.advance(24 * 60 * MINUTE);
    expect((await call({ key: 'fresh' }, ok('c'))).body).toBe('c');
    expect(first.body).toBe('a');
  });

  it("takes over at once a key whose claimant's process is gone from this machine, never one a live process holds", async () => {
    const { call, clock, storage } = setup();
    // A process that has exited: its pid names no process now (kill -9, then a restart).
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const claimed = (key: string, owner: string) =>
      storage.insert({
        scope: 'key_1',
        key,
        fingerprint: 'unused',
        state: 'in_flight',
        lockedUntil: new Date(clock.now().getTime() + MINUTE).toISOString(),
        expiresAt: new Date(clock.now().getTime() + 1000 * MINUTE).toISOString(),
        response: null,
        requestId: `req_${key}`,
        createdAt: clock.now().toISOString(),
        owner,
      });
    const first = await call({ key: 'probe' }, ok(0));
    expect(first.body).toBe(0);
    const fingerprint = storage.records.get('key_1\u0000probe')?.fingerprint ?? '';
    for (const [key, owner] of [
      ['dead', `${pidSpaceHere()}/${dead}/inst_gone`],
      ['alive', `${pidSpaceHere()}/${process.pid}/inst_other`],
    ] as const) {
      await claimed(key, owner);
      const rec = storage.records.get(`key_1\u0000${key}`);
      if (rec) storage.records.set(`key_1\u0000${key}`, { ...rec, fingerprint });
    }
    expect((await call({ key: 'dead' }, ok('taken over'))).body).toBe('taken over');
    await expect(call({ key: 'alive' }, ok('no'))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
  });

  it('lets exactly one of many concurrent claims of one abandoned key run', async () => {
    const { call, clock, storage } = setup();
    await call({ key: 'stale' }, ok('first'));
    const rec = storage.records.get('key_1\u0000stale');
    if (rec) storage.records.set('key_1\u0000stale', { ...rec, state: 'in_flight', response: null });
    clock.advance(MINUTE + 1);
    let runs = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        call({ key: 'stale' }, async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 5));
          return { status: 200, body: 'again', headers: {} };
        }),
      ),
    );
    expect(runs).toBe(1);
    for (const o of outcomes)
      if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
  });

  it('stores 4xx outcomes but not 400s, 5xx or crashes', async () => {
    const { call } = setup();
    const fail = (err: Error) => async (): Promise<RouteResult> => {
      throw err;
    };
    await expect(call({ key: 'a' }, fail(new AppError(409, 'STATE', 'no')))).rejects.toThrow();
    const replay = await call({ key: 'a' }, ok(1));
    expect(replay.status).toBe(409);
    expect((replay.body as { error: { code: string } }).error.code).toBe('STATE');

    await expect(call({ key: 'b' }, fail(new AppError(400, 'INVALID_REQUEST', 'bad')))).rejects.toThrow();
    expect((await call({ key: 'b' }, ok(2))).body).toBe(2);
    await expect(call({ key: 'c' }, fail(new Error('boom')))).rejects.toThrow('boom');
    expect((await call({ key: 'c' }, ok(3))).body).toBe(3);
  });

  it('rejects a malformed key', async () => {
    const { call } = setup();
    await expect(call({ key: 'has space' }, ok(1))).rejects.toMatchObject({ status: 400 });
  });

  it('writes no answer of its own for a handler that stored it and said so, and replays that one', async () => {
    const { call, storage } = setup();
    const completes: string[] = [];
    const complete = storage.complete.bind(storage);
    storage.complete = async (scope, key, response) => {
      completes.push(key);
      await complete(scope, key, response);
    };
    // Like confirmCheckout: the answer goes in with the operation, then the handler says so.
    const storing = async (req: Request): Promise<RouteResult> => {
      const request = idempotentRequestOf(req);
      if (!request) throw new Error('no idempotent request in the handler');
      await complete(request.scope, request.key, request.responseFor({ stored: true }));
      request.answered();
      return { status: 200, body: { stored: true }, headers: {} };
    };
    await call({ key: 'told' }, storing);
    expect(completes).toEqual([]);
    const replay = await call({ key: 'told' }, ok('not run'));
    expect(replay.body).toEqual({ stored: true });
    expect(replay.headers).toMatchObject({ 'Idempotent-Replayed': 'true' });

    // A handler that does not say so gets the wrapper's write, once.
    await call({ key: 'untold' }, ok({ n: 1 }));
    expect(completes).toEqual(['untold']);
  });
});
