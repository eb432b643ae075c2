import { AppError } from '../../../platform/errors.js';
import type { CommerceContext } from '../../context.js';
import type { Merchant } from '../../schemas/resources.js';
import { type Product, productOfPageOffer, type StoreAdapter } from '../adapter.js';
import { withHealth } from '../health.js';
import { formatMoney } from '../product-page/money.js';
import { readOnce, readStorePage, type StorePage, type StorePageReads } from './read.js';

/** The reader's refusal to guess, as the API error of the same name. */
function refusal(result: Extract<StorePage['result'], { ok: false }>): AppError {
  return new AppError(422, result.reason, result.message);
}

/** The product a page shows, the variant its link selects first. */
function productOf(page: StorePage): Product {
  if (!page.result.ok) throw refusal(page.result);
  return productOfPageOffer(page.result.offer);
}

/**
 * Long-tail stores (tier `long_tail`, route `browser`), live keys: offers and prices are read from
 * the product page; the purchase itself is handed to the user's browser (a prefilled Shopify cart,
 * or the product page), because such a store has no API to place an order through.
 *
 * One read per link for the request that passes `reads`: the join, the product, the quote and the
 * hand-off share it. A page the join read is reused without a second health check: that read was
 * this store answering, moments ago in the same request.
 */
export function longTailAdapter(ctx: CommerceContext, reads: StorePageReads = new Map()): StoreAdapter {
  const read = (merchant: Merchant, url: string) =>
    readOnce(reads, url, () => withHealth(ctx, merchant, () => readStorePage(ctx, url)));

  return {
    async product(merchant, url) {
      return productOf(await read(merchant, url));
    },

    async quote(input) {
      const product = productOf(await read(input.merchant, input.url));
      const variant = product.variants.find((v) => v.item_ref === input.item_ref);
      if (!variant) {
        throw new AppError(
          422,
          'VARIANT_NOT_FOUND',
          `The product page no longer shows a single price for ${input.item_ref}.`,
        );
      }
      const { amount, currency } = variant.price;
      const subtotal = { amount: amount * input.quantity, currency };
      return {
        line_items: [
          {
            item_ref: variant.item_ref,
            title: variant.title,
            quantity: input.quantity,
            unit_price: variant.price,
          },
        ],
        // The page shows the item's price only: the store adds shipping and tax at its own checkout.
        totals: { subtotal, shipping: null, tax: null, total: subtotal },
        messages: [
          `Read from the product page: ${input.quantity} x ${variant.title} at ${formatMoney(variant.price)}. Shipping and tax are added by the store at its checkout.`,
        ],
      };
    },

    challenge: () => null,
    verify: () => ({ ok: true }),

    async placeOrder() {
      // Never reached: these checkouts are handed off and never reach ready_to_confirm.
      return {
        ok: false,
        error: {
          code: 'MERCHANT_NOT_SUPPORTED',
          message: 'This store takes orders only in the user’s browser; the checkout was handed off.',
        },
        messages: [],
      };
    },

    async orderStatus() {
      return { state: 'unknown', reason: 'A long-tail store does not tell this API about its orders.' };
    },

    async handoff(input) {
      const page = await read(input.merchant, input.url);
      const origin = new URL(input.url).origin;
      // Only on the link's own origin: a page that redirected elsewhere does not choose where the user pays.
      if (page.shopifyVariantIds?.includes(input.item_ref) && new URL(page.url).origin === origin) {
        // Shopify's cart permalink: /cart/<variant id>:<quantity> fills the cart and opens checkout.
        const url = `${origin}/cart/${encodeURIComponent(input.item_ref)}:${input.quantity}`;
        return {
          url,
          message: `Open this link in the user's browser: ${input.merchant.name}'s checkout opens with ${input.quantity} x the chosen item in the cart. The user enters shipping and payment there and places the order; this API is not told the outcome.`,
        };
      }
      return {
        url: input.url,
        message: `${input.merchant.name} has no way for this API to fill a cart: open the product page in the user's browser, where they add the item, pay and place the order. This API is not told the outcome.`,
      };
    },
  };
}
