export { readAvailability } from './availability.js';
export { currencyDigits, parseAmount } from './money.js';
export { readProductPage } from './read-product-page.js';
export { readShopifyProductJson, type ShopifyReadOptions } from './shopify.js';
export type { ProductPageOffer, ProductPageRefusal, ProductPageResult, ProductPageSource } from './types.js';
