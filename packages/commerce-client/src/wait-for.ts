import {
  APIPromise,
  type APIResponse,
  APIUserAbortError,
  DEFAULT_POLL_TIMEOUT_MS,
  PollTimeoutError,
  poll,
  type Sleep,
} from '@svc/client-core';
import type { Checkout, CheckoutStatus } from '@svc/webhooks';

/** Every status where the app must act, or that is final. */
export const DEFAULT_WAIT_UNTIL: readonly CheckoutStatus[] = Object.freeze([
  'ready_to_confirm',
  'requires_user_action',
  'completed',
  'failed',
  'canceled',
]);

/** A final checkout never changes again, so waiting on it for anything else is pointless. */
export const FINAL_CHECKOUT_STATUSES: readonly CheckoutStatus[] = Object.freeze([
  'completed',
  'failed',
  'canceled',
]);

const ALL_STATUSES: ReadonlySet<string> = new Set<CheckoutStatus>([
  'building',
  'requires_user_action',
  'ready_to_confirm',
  'confirming',
  'completed',
  'failed',
  'canceled',
]);

export interface CheckoutWaitForOptions {
  /**
   * Statuses that end the wait. Default: `ready_to_confirm`, `requires_user_action`,
   * `completed`, `failed`, `canceled`. A final status (`completed`, `failed`, `canceled`)
   * always ends it, listed or not: check `status` on the result.
   */
  until?: readonly CheckoutStatus[] | undefined;
  /** Total time allowed, in ms. Default 300 000 (5 minutes). */
  timeoutMs?: number | undefined;
  /** First wait between reads, in ms. Default 500; each wait is 1.5x longer, up to `maxIntervalMs`. */
  intervalMs?: number | undefined;
  /** Longest wait between reads, in ms. Default 5 000. */
  maxIntervalMs?: number | undefined;
  /** Stops the wait (and the read in flight) with a CheckoutWaitAbortedError. */
  signal?: AbortSignal | undefined;
  /** Called with the first checkout read, then each time its status changes. Awaited. */
  onUpdate?: ((checkout: Checkout) => void | Promise<void>) | undefined;
}

/** `checkouts.waitFor` ran out of time. `checkout` is the last one read. */
export class CheckoutWaitTimeoutError extends PollTimeoutError<Checkout> {
  static {
    CheckoutWaitTimeoutError.prototype.name = 'CheckoutWaitTimeoutError';
  }
  /** The last checkout read; `undefined` if no read finished in time. */
  readonly checkout: Checkout | undefined;
  /** The statuses that were being waited for. */
  readonly until: readonly CheckoutStatus[];

  constructor(message: string, checkout: Checkout | undefined, until: readonly CheckoutStatus[]) {
    super(message, checkout);
    this.checkout = checkout;
    this.until = until;
  }
}

/** The signal passed to `checkouts.waitFor` fired. `checkout` is the last one read. */
export class CheckoutWaitAbortedError extends APIUserAbortError {
  static {
    CheckoutWaitAbortedError.prototype.name = 'CheckoutWaitAbortedError';
  }
  readonly checkout: Checkout | undefined;

  constructor(message: string, checkout: Checkout | undefined, cause: unknown) {
    super(message, { cause });
    this.checkout = checkout;
  }
}

function checkUntil(until: readonly CheckoutStatus[]): void {
  if (!Array.isArray(until) || until.length === 0) {
    throw new TypeError('waitFor: `until` must be a non-empty array of checkout statuses.');
  }
  const unknown = until.filter((status) => !ALL_STATUSES.has(status));
  if (unknown.length > 0) {
    throw new TypeError(
      `waitFor: unknown checkout status ${unknown.map((s) => JSON.stringify(s)).join(', ')}; ` +
        `expected some of ${[...ALL_STATUSES].join(', ')}.`,
    );
  }
}

/**
 * Polls `read` until the checkout reaches a status in `until` (or a final one). The result is
 * an APIPromise whose `.withResponse()` gives the last read's response and request id.
 */
export function waitForCheckout(
  id: string,
  read: (signal: AbortSignal | undefined) => APIPromise<Checkout>,
  options: CheckoutWaitForOptions,
  sleep: Sleep | undefined,
): APIPromise<Checkout> {
  const until = options.until ?? DEFAULT_WAIT_UNTIL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS;
  const run = async (): Promise<APIResponse<Checkout>> => {
    checkUntil(until);
    const done = new Set<CheckoutStatus>([...until, ...FINAL_CHECKOUT_STATUSES]);
    let last: APIResponse<Checkout> | undefined;
    try {
      await poll<Checkout>({
        get: async (signal) => {
          last = await read(signal).withResponse();
          return last.data;
        },
        until: (checkout) => done.has(checkout.status),
        key: (checkout) => checkout.status,
        onUpdate: options.onUpdate,
        timeoutMs,
        intervalMs: options.intervalMs,
        maxIntervalMs: options.maxIntervalMs,
        signal: options.signal,
        sleep,
      });
      return last as APIResponse<Checkout>;
    } catch (error) {
      const checkout = last?.data;
      if (error instanceof PollTimeoutError) {
        const seen = checkout ? `still ${checkout.status}` : 'not read once';
        throw new CheckoutWaitTimeoutError(
          `Checkout ${id} is ${seen} after ${timeoutMs} ms (waiting for ${until.join(', ')}). ` +
            'The last checkout read is on error.checkout.',
          checkout,
          until,
        );
      }
      if (error instanceof APIUserAbortError) {
        throw new CheckoutWaitAbortedError(
          `Waiting for checkout ${id} was aborted${checkout ? ` while it was ${checkout.status}` : ''}.`,
          checkout,
          error.cause,
        );
      }
      throw error;
    }
  };
  return new APIPromise(run());
}
