import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../platform/clock.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import { sandboxOrdersStore } from '../db/sandbox-orders-store.js';
import type { ShippingAddress } from '../schemas/common.js';
import type { OrderStatus, PlaceResult, Quote, QuoteInput, StoreAdapter } from './adapter.js';
import { magicWords, SANDBOX_ONE_TIME_CODE, sandboxProduct } from './sandbox-products.js';

const TAX_RATES: Record<string, number> = { US: 0.0825, CA: 0.13 };

function shippingFor(address: ShippingAddress, subtotal: number): number {
  if (address.country === 'US') return subtotal >= 10_000 ? 0 : 599;
  return 1_499;
}

/** How long a `slow-order` product keeps the store busy on each side of recording the order. */
const SLOW_ORDER_HALF_MS = 25;

/**
 * Every sandbox store, whatever its route: deterministic prices, magic words, no network. The
 * stores keep what they placed in their own ledger (a table of the commerce database, written
 * apart from our transactions, as a real store's database would be).
 */
export const sandboxAdapter = (deps: { db: SqlExecutor; clock: Clock }): StoreAdapter => ({
  async product(_merchant, url) {
    return sandboxProduct(url);
  },

  async quote(input: QuoteInput): Promise<Quote> {
    const product = sandboxProduct(input.url);
    const variant = product.variants.find((v) => v.item_ref === input.item_ref) ?? product.variants[0];
    if (!variant) throw new Error('A sandbox product always has a variant.');
    const messages: string[] = [];
    let unit = variant.price.amount;
    if (magicWords(input.url).has('price-change') && input.reprice_count > 0) {
      const before = unit;
      unit = Math.round(unit * (1 + 0.1 * input.reprice_count));
      messages.push(`Price changed from ${before} to ${unit} ${variant.price.currency} per item.`);
    }
    const currency = variant.price.currency;
    const subtotal = unit * input.quantity;
    const shipping = input.address ? shippingFor(input.address, subtotal) : null;
    const tax = input.address ? Math.round(subtotal * (TAX_RATES[input.address.country] ?? 0)) : null;
    messages.push(
      input.address
        ? `Priced ${input.quantity} x ${variant.item_ref} for delivery to ${input.address.country}.`
        : 'Shipping and tax are calculated once a shipping address is known.',
    );
    return {
      line_items: [
        {
          item_ref: variant.item_ref,
          title: variant.title,
          quantity: input.quantity,
          unit_price: { amount: unit, currency },
        },
      ],
      totals: {
        subtotal: { amount: subtotal, currency },
        shipping: shipping === null ? null : { amount: shipping, currency },
        tax: tax === null ? null : { amount: tax, currency },
        total: { amount: subtotal + (shipping ?? 0) + (tax ?? 0), currency },
      },
      messages,
    };
  },

  challenge(_merchant, url) {
    if (!magicWords(url).has('requires-action')) return null;
    return [{ name: 'code', label: 'One-time code the store sent to the user', type: 'one_time_code' }];
  },

  verify(fields) {
    return fields.code === SANDBOX_ONE_TIME_CODE
      ? { ok: true }
      : {
          ok: false,
          message: `The store did not accept the code. In the sandbox the code is ${SANDBOX_ONE_TIME_CODE}.`,
        };
  },

  async placeOrder(input): Promise<PlaceResult> {
    if (magicWords(input.url).has('decline')) {
      return {
        ok: false,
        error: {
          code: 'MERCHANT_DECLINED',
          message: 'The store declined the order (sandbox "decline" product).',
        },
        messages: ['Order declined by the store.'],
      };
    }
    // `slow-order`: the store takes a moment before and after it records the order, so a crash
    // can land on either side of it (the crash-recovery test relies on this).
    const slow = magicWords(input.url).has('slow-order');
    if (slow) await sleep(SLOW_ORDER_HALF_MS);
    const ref = await sandboxOrdersStore(deps.db).place(
      input.checkout_id,
      `SBX-${input.checkout_id.slice(-8).toUpperCase()}`,
      deps.clock.now().toISOString(),
    );
    if (slow) await sleep(SLOW_ORDER_HALF_MS);
    return { ok: true, merchant_order_ref: ref, messages: [`Order ${ref} accepted by the store.`] };
  },

  async orderStatus(ref): Promise<OrderStatus> {
    const placed = await sandboxOrdersStore(deps.db).find(ref.checkout_id);
    return placed
      ? { state: 'placed', merchant_order_ref: placed.merchant_order_ref }
      : { state: 'not_placed' };
  },
});
