import type {
  AttemptOutcomeRecord,
  EndpointRecord,
  EventRecord,
} from '../../src/commerce/db/webhooks-store.js';

// Rows for the webhook store's tests below HTTP (claims, outcome batches): one account in
// sandbox, so a test names only what it varies.

/** acct_1's sandbox endpoint `id` at `url`, its secret made from its id. */
export const sandboxEndpoint = (id: string, url: string, at: string): EndpointRecord => ({
  id,
  account_id: 'acct_1',
  env: 'sandbox',
  url,
  secret: `whsec_${id}`,
  created_at: at,
});

/** A `checkout.updated` event of acct_1 in sandbox, with no data. */
export const checkoutUpdated = (id: string, at: string): EventRecord => ({
  id,
  account_id: 'acct_1',
  env: 'sandbox',
  type: 'checkout.updated',
  data: {},
  created_at: at,
});

/** `owner-1`'s first attempt at delivery `id`, answered 200 at `at`; `o` changes what a test varies. */
export const firstAttemptOk = (
  id: string,
  at: string,
  o: Partial<AttemptOutcomeRecord> = {},
): AttemptOutcomeRecord => ({
  owner: 'owner-1',
  delivery_id: id,
  attempt: 1,
  started_at: at,
  status_code: 200,
  error: null,
  next_attempt_at: null,
  status: 'succeeded',
  at,
  ...o,
});
