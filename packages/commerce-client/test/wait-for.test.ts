import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIUserAbortError,
  type Checkout,
  CheckoutWaitAbortedError,
  CheckoutWaitTimeoutError,
  CommerceApiError,
  MissingUserTokenError,
  NotFoundError,
  PollTimeoutError,
} from '../src/index.js';
import {
  BASE,
  checkout,
  checkoutSequence,
  errorBody,
  makeClient,
  seen,
  server,
  useServer,
} from './helpers.js';

useServer();

describe('checkouts.waitFor', () => {
  it('polls until the app must act, calling onUpdate only when the status changes', async () => {
    const reads = checkoutSequence(['building', 'building', 'building', 'requires_user_action']);
    const { user, delays } = makeClient();
    const updates: string[] = [];
    const result = await user.checkouts.waitFor('chk_1', { onUpdate: (c) => void updates.push(c.status) });
    expect(result.status).toBe('requires_user_action');
    expect(reads.reads()).toBe(4);
    expect(updates).toEqual(['building', 'requires_user_action']);
    // Gentle back-off: 0.5 s growing 1.5x.
    expect(delays).toEqual([500, 750, 1125]);
    expect(seen.every((r) => r.headers.get('service-user-token') === 'user-unit-token')).toBe(true);
  });

  it('returns at once when the checkout is already in a wanted state', async () => {
    checkoutSequence(['ready_to_confirm']);
    const { user } = makeClient();
    expect((await user.checkouts.waitFor('chk_1')).status).toBe('ready_to_confirm');
    expect(seen).toHaveLength(1);
  });

  it('waits for exactly the statuses in `until`', async () => {
    checkoutSequence(['building', 'requires_user_action', 'ready_to_confirm', 'confirming', 'completed']);
    const { user } = makeClient();
    const updates: Checkout['status'][] = [];
    const result = await user.checkouts.waitFor('chk_1', {
      until: ['completed'],
      intervalMs: 10,
      onUpdate: (c) => {
        updates.push(c.status);
      },
    });
    expect(result.status).toBe('completed');
    expect(updates).toEqual([
      'building',
      'requires_user_action',
      'ready_to_confirm',
      'confirming',
      'completed',
    ]);
  });

  it('stops on a final status even when it is not in `until`', async () => {
    checkoutSequence(['confirming', 'failed']);
    const { user } = makeClient();
    const result = await user.checkouts.waitFor('chk_1', { until: ['completed'] });
    expect(result.status).toBe('failed');
  });

  it('withResponse() gives the last read’s response and request id', async () => {
    checkoutSequence(['building', 'ready_to_confirm']);
    const { user } = makeClient();
    const { data, requestId, response } = await user.checkouts.waitFor('chk_1').withResponse();
    expect(data.status).toBe('ready_to_confirm');
    expect(requestId).toBe('req_2');
    expect(response.ok).toBe(true);
  });

  it('times out with a typed error holding the last checkout', async () => {
    checkoutSequence(['building']);
    // Real (short) sleeps here: the deadline is measured on the clock.
    const { user } = makeClient({ sleep: undefined });
    const error = (await user.checkouts
      .waitFor('chk_1', { timeoutMs: 60, intervalMs: 10 })
      .catch((e: unknown) => e)) as CheckoutWaitTimeoutError;
    expect(error).toBeInstanceOf(CheckoutWaitTimeoutError);
    expect(error).toBeInstanceOf(PollTimeoutError);
    expect(error).toBeInstanceOf(CommerceApiError);
    expect(error.name).toBe('CheckoutWaitTimeoutError');
    expect(error.checkout?.status).toBe('building');
    expect(error.lastValue).toBe(error.checkout);
    expect(error.until).toContain('ready_to_confirm');
    expect(error.message).toMatch(/^Checkout chk_1 is still building after 60 ms/);
    expect(seen.length).toBeGreaterThan(1);
  });

  it('stops when the signal aborts mid-wait, with the last checkout on the error', async () => {
    checkoutSequence(['building']);
    const { user } = makeClient({ sleep: undefined });
    const controller = new AbortController();
    const wait = user.checkouts.waitFor('chk_1', {
      signal: controller.signal,
      intervalMs: 5_000,
      onUpdate: () => {
        setTimeout(() => controller.abort(new Error('user left')), 10);
      },
    });
    const error = (await wait.catch((e: unknown) => e)) as CheckoutWaitAbortedError;
    expect(error).toBeInstanceOf(CheckoutWaitAbortedError);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.checkout?.status).toBe('building');
    expect((error.cause as Error).message).toBe('user left');
    expect(seen).toHaveLength(1);
  });

  it('rejects at once for a signal that has already aborted', async () => {
    checkoutSequence(['building']);
    const { user } = makeClient();
    const error = await user.checkouts
      .waitFor('chk_1', { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckoutWaitAbortedError);
    expect((error as CheckoutWaitAbortedError).checkout).toBeUndefined();
    expect(seen).toHaveLength(0);
  });

  it('passes on API errors from a read', async () => {
    server.use(
      http.get(`${BASE}/checkouts/chk_1`, () =>
        HttpResponse.json(errorBody('NOT_FOUND', 'No checkout.'), { status: 404 }),
      ),
    );
    const { user } = makeClient();
    await expect(user.checkouts.waitFor('chk_1')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('needs a user token, and sends nothing without one', async () => {
    const { client } = makeClient();
    await expect(client.checkouts.waitFor('chk_1')).rejects.toBeInstanceOf(MissingUserTokenError);
    expect(seen).toHaveLength(0);
  });

  it('refuses an empty or unknown `until`', async () => {
    server.use(http.get(`${BASE}/checkouts/chk_1`, () => HttpResponse.json(checkout())));
    const { user } = makeClient();
    await expect(user.checkouts.waitFor('chk_1', { until: [] })).rejects.toThrow(TypeError);
    await expect(user.checkouts.waitFor('chk_1', { until: ['done' as Checkout['status']] })).rejects.toThrow(
      /unknown checkout status "done"/,
    );
    expect(seen).toHaveLength(0);
  });
});
