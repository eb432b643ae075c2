export { readAvailability } from './availability.js';
export {
  type FetchPageDeps,
  type FetchPageFailure,
  type FetchPageResult,
  fetchProductPage,
  PAGE_MAX_BYTES,
  PAGE_TIMEOUT_MS,
} from './fetch-page.js';
export { currencyDigits, parseAmount } from './money.js';
export { readProductPage, readProductPageSliced, readProductSources } from './read-product-page.js';
export {
  readShopifyProductJson,
  readShopifySteps,
  type ShopifyReadOptions,
  shopifyProductJsonUrl,
} from './shopify.js';
export type { ProductPageOffer, ProductPageRefusal, ProductPageResult, ProductPageSource } from './types.js';
