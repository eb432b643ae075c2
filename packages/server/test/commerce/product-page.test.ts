import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  currencyDigits,
  parseAmount,
  readAvailability,
  readProductPage,
  readShopifyProductJson,
  shopifyProductJsonUrl,
} from '../../src/commerce/merchants/product-page/index.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/product-pages/${name}`, import.meta.url), 'utf8');
const page = (name: string, url: string) => readProductPage(fixture(name), url);

describe('money: exact minor units per currency', () => {
  it('knows each currency’s decimals from Intl', () => {
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits('KWD')).toBe(3);
    expect(currencyDigits('USD')).toBe(2);
    expect(currencyDigits('EUR')).toBe(2);
    expect(currencyDigits('usd')).toBeNull();
    expect(currencyDigits('DOLLARS')).toBeNull();
  });

  it.each([
    ['19.99', 'USD', 1999],
    [19.99, 'USD', 1999],
    [0.29, 'USD', 29], // 0.29 * 100 is 28.999999999999996 in floating point
    [1.005, 'USD', null], // three decimals in a two-decimal currency
    ['19.990', 'USD', 1999],
    ['19.9', 'EUR', 1990],
    ['1299', 'EUR', 129900],
    ['1,299.00', 'USD', 129900],
    ['1980', 'JPY', 1980],
    ['1980.00', 'JPY', 1980],
    ['1980.5', 'JPY', null],
    ['12.345', 'KWD', 12345],
    ['12.3', 'KWD', 12300],
    [' 7 ', 'KWD', 7000],
  ] as const)('%j %s → %s', (raw, currency, expected) => {
    const read = parseAmount(raw, currency);
    if (expected === null) expect(read.ok).toBe(false);
    else expect(read).toEqual({ ok: true, money: { amount: expected, currency } });
  });

  it.each(['19,99', '1,299', '$19.99', '19.99 USD', '-1', '1e3', '.5', '', 'NaN'])(
    'refuses %j rather than guess',
    (raw) => {
      expect(parseAmount(raw, 'USD').ok).toBe(false);
    },
  );

  it('refuses non-finite and negative numbers and a bad currency', () => {
    expect(parseAmount(Number.POSITIVE_INFINITY, 'USD').ok).toBe(false);
    expect(parseAmount(-5, 'USD').ok).toBe(false);
    expect(parseAmount('5', 'XX').ok).toBe(false);
    expect(parseAmount('99999999999999999999', 'USD').ok).toBe(false);
  });
});

describe('availability words', () => {
  it.each([
    ['https://schema.org/InStock', 'in_stock'],
    ['http://schema.org/OutOfStock', 'out_of_stock'],
    ['https://www.schema.org/PreOrder', 'preorder'],
    ['schema:SoldOut', 'out_of_stock'],
    ['InStock', 'in_stock'],
    ['PreOrder', 'preorder'],
    ['BackOrder', 'preorder'],
    ['Discontinued', 'out_of_stock'],
    ['LimitedAvailability', 'in_stock'],
    ['in stock', 'in_stock'],
    ['out of stock', 'out_of_stock'],
    ['oos', 'out_of_stock'],
    ['available for order', 'in_stock'],
    ['https://example.com/InStock', 'unknown'],
    ['maybe', 'unknown'],
  ] as const)('%s → %s', (raw, expected) => {
    expect(readAvailability(raw)).toBe(expected);
  });
});

describe('readProductPage: JSON-LD', () => {
  it('reads a single Offer, resolving the image against the page', () => {
    const result = page('json-ld-single-offer.html', 'https://small.example.com/products/apron');
    expect(result).toEqual({
      ok: true,
      offer: {
        title: 'Linen Apron',
        price: { amount: 1999, currency: 'USD' },
        availability: 'in_stock',
        item_ref: 'APR-01',
        image_url: 'https://small.example.com/cdn/apron.jpg',
        variants: [
          {
            item_ref: 'APR-01',
            title: 'Linen Apron',
            price: { amount: 1999, currency: 'USD' },
            availability: 'in_stock',
          },
        ],
        source: 'json-ld',
      },
    });
  });

  it('refuses an AggregateOffer price range: the page does not say which variant costs what', () => {
    for (const url of ['https://wool.example.com/p/throw', 'https://wool.example.com/p/throw?variant=2']) {
      const result = page('json-ld-aggregate-offer.html', url);
      expect(result).toMatchObject({ ok: false, reason: 'AMBIGUOUS_PRICE' });
      if (!result.ok) expect(result.message).toContain('45.00 EUR, 60.00 EUR');
    }
  });

  it('reads an AggregateOffer whose low and high price agree', () => {
    const result = page('json-ld-aggregate-offer-same-price.html', 'https://wool.example.com/p/socks');
    expect(result).toMatchObject({
      ok: true,
      offer: { price: { amount: 1250, currency: 'EUR' }, availability: 'in_stock', title: 'Wool Socks' },
    });
  });

  it('uses the offers inside an AggregateOffer as variants, chosen by ?sku=', () => {
    const base = 'https://tea.example.co.uk/tin';
    const small = {
      item_ref: 'TIN-S',
      title: 'Small tin',
      price: { amount: 800, currency: 'GBP' },
      availability: 'in_stock',
    };
    const large = {
      item_ref: 'TIN-L',
      title: 'Large tin',
      price: { amount: 1400, currency: 'GBP' },
      availability: 'out_of_stock',
    };
    expect(page('json-ld-aggregate-offer-inner-offers.html', base)).toMatchObject({
      ok: true,
      offer: { item_ref: 'TIN-S', price: small.price, availability: 'in_stock', variants: [small, large] },
    });
    expect(page('json-ld-aggregate-offer-inner-offers.html', `${base}?SKU=TIN-L`)).toMatchObject({
      ok: true,
      offer: {
        item_ref: 'TIN-L',
        price: large.price,
        availability: 'out_of_stock',
        variants: [small, large],
      },
    });
    expect(page('json-ld-aggregate-offer-inner-offers.html', `${base}?sku=TIN-X`)).toMatchObject({
      ok: false,
      reason: 'VARIANT_NOT_FOUND',
    });
  });

  it('finds a Product nested in @graph (WebPage.mainEntity) and resolves a relative ImageObject', () => {
    const result = page('json-ld-graph.html', 'https://shop.example.com/products/kettle');
    expect(result).toMatchObject({
      ok: true,
      offer: {
        title: 'Enamel Kettle',
        price: { amount: 3490, currency: 'EUR' },
        availability: 'preorder',
        item_ref: 'KET-9',
        image_url: 'https://shop.example.com/products/images/kettle.png',
      },
    });
  });

  it('accepts @type as an array, a top-level array of nodes, and JPY with no decimals', () => {
    const result = page('json-ld-type-array.html', 'https://ceramics.example/mug');
    expect(result).toMatchObject({
      ok: true,
      offer: {
        title: 'Stoneware Mug',
        price: { amount: 1980, currency: 'JPY' },
        availability: 'in_stock',
        item_ref: 'mug-42',
        image_url: 'https://cdn.ceramics.example/mug.jpg',
      },
    });
  });

  describe('offers as an array of variants', () => {
    const base = 'https://tote.example.com/products/canvas-tote';
    const natural = {
      item_ref: '40001',
      title: 'Canvas Tote - Natural',
      price: { amount: 2500, currency: 'USD' },
      availability: 'in_stock',
    };
    const black = {
      item_ref: '40002',
      title: 'Canvas Tote - Black',
      price: { amount: 2850, currency: 'USD' },
      availability: 'out_of_stock',
    };
    const indigo = {
      item_ref: '40003',
      title: 'Canvas Tote - Indigo',
      price: { amount: 3000, currency: 'USD' },
      availability: 'preorder',
    };

    it.each([
      [base, natural],
      [`${base}?variant=40002`, black],
      [`${base}?variant=40003&utm_source=x`, indigo],
      [`${base}?sku=TOTE-BLK`, black],
    ])('%s selects its variant', (url, selected) => {
      expect(page('json-ld-variants.html', url)).toEqual({
        ok: true,
        offer: {
          title: 'Canvas Tote',
          price: selected.price,
          availability: selected.availability,
          item_ref: selected.item_ref,
          image_url: 'https://tote.example.com/cdn/shop/files/tote.jpg?v=1',
          variants: [natural, black, indigo],
          source: 'json-ld',
        },
      });
    });

    it('refuses a variant the page does not list', () => {
      const result = page('json-ld-variants.html', `${base}?variant=99999`);
      expect(result).toMatchObject({ ok: false, reason: 'VARIANT_NOT_FOUND' });
      if (!result.ok) expect(result.message).toContain('99999');
    });
  });

  it('reads priceSpecification, skipping the strikethrough price, with KWD’s three decimals', () => {
    const result = page('json-ld-price-specification.html', 'https://oud.example.com.kw/p/50');
    expect(result).toMatchObject({
      ok: true,
      offer: { price: { amount: 12345, currency: 'KWD' }, availability: 'in_stock', item_ref: 'OUD-50' },
    });
  });

  it('reads JSON-LD whose strings hold raw line breaks, as pasted descriptions often do', () => {
    const html = `<script type="application/ld+json">{"@type":"Product","name":"Quilt","description":"Warm.
Soft.	King size.","sku":"Q-1","offers":{"@type":"Offer","price":"120.00","priceCurrency":"CAD","availability":"InStock"}}</script>`;
    expect(readProductPage(html, 'https://quilts.example.ca/q')).toMatchObject({
      ok: true,
      offer: {
        title: 'Quilt',
        price: { amount: 12000, currency: 'CAD' },
        availability: 'in_stock',
        item_ref: 'Q-1',
      },
    });
  });

  it('lets a single offer without a variant id answer ?variant=, but not a different ?sku=', () => {
    const base = 'https://small.example.com/products/apron';
    expect(page('json-ld-single-offer.html', `${base}?variant=123`)).toMatchObject({
      ok: true,
      offer: { item_ref: 'APR-01', price: { amount: 1999, currency: 'USD' } },
    });
    expect(page('json-ld-single-offer.html', `${base}?sku=APR-01`)).toMatchObject({ ok: true });
    expect(page('json-ld-single-offer.html', `${base}?sku=APR-02`)).toMatchObject({
      ok: false,
      reason: 'VARIANT_NOT_FOUND',
    });
  });

  it('skips a malformed JSON-LD block and uses the next valid one; drops a non-http image', () => {
    const result = page('malformed-json-ld.html', 'https://candles.example.de/kerze');
    expect(result).toEqual({
      ok: true,
      offer: {
        title: 'Beeswax Candle',
        price: { amount: 900, currency: 'EUR' },
        availability: 'in_stock',
        item_ref: 'CANDLE-2',
        image_url: null,
        variants: [
          {
            item_ref: 'CANDLE-2',
            title: 'Beeswax Candle',
            price: { amount: 900, currency: 'EUR' },
            availability: 'in_stock',
          },
        ],
        source: 'json-ld',
      },
    });
  });
});

describe('readProductPage: Open Graph and refusals', () => {
  it('reads an Open Graph-only page (grouped thousands, lower-case currency, relative image)', () => {
    const result = page('open-graph-only.html', 'https://potters.example/shop/bowl');
    expect(result).toEqual({
      ok: true,
      offer: {
        title: 'Hand-thrown Bowl',
        price: { amount: 129900, currency: 'USD' },
        availability: 'out_of_stock',
        item_ref: 'BOWL-7',
        image_url: 'https://potters.example/media/bowl.webp',
        variants: [
          {
            item_ref: 'BOWL-7',
            title: 'Hand-thrown Bowl',
            price: { amount: 129900, currency: 'USD' },
            availability: 'out_of_stock',
          },
        ],
        source: 'open-graph',
      },
    });
  });

  it('refuses when JSON-LD and Open Graph disagree on the only variant’s price', () => {
    const result = page('two-prices.html', 'https://lamps.example/desk');
    expect(result).toMatchObject({ ok: false, reason: 'AMBIGUOUS_PRICE' });
    if (!result.ok) expect(result.message).toContain('19.99 USD, 24.99 USD');
  });

  it('refuses an Open Graph page whose sale price differs from its price, and reads og:price alone', () => {
    const tags = (extra: string) =>
      `<meta property="og:title" content="Vase"><meta property="og:price:amount" content="40.00">
       <meta property="og:price:currency" content="EUR">${extra}`;
    expect(
      readProductPage(
        tags('<meta property="product:sale_price:amount" content="32.00">'),
        'https://v.example/vase',
      ),
    ).toMatchObject({ ok: false, reason: 'AMBIGUOUS_PRICE' });
    expect(readProductPage(tags(''), 'https://v.example/vase')).toMatchObject({
      ok: true,
      offer: {
        title: 'Vase',
        price: { amount: 4000, currency: 'EUR' },
        availability: 'unknown',
        item_ref: 'https://v.example/vase',
      },
    });
  });

  it('refuses when two offers for the same SKU disagree', () => {
    for (const url of ['https://lamps.example/desk', 'https://lamps.example/desk?sku=LAMP-1']) {
      expect(page('two-offers-same-variant.html', url)).toMatchObject({
        ok: false,
        reason: 'AMBIGUOUS_PRICE',
      });
    }
  });

  it('refuses a page with no price', () => {
    expect(page('no-price.html', 'https://mystery.example.com/box')).toMatchObject({
      ok: false,
      reason: 'NO_PRICE',
    });
    expect(
      readProductPage('<html><head><title>Hi</title></head></html>', 'https://x.example/'),
    ).toMatchObject({
      ok: false,
      reason: 'NO_PRICE',
    });
    expect(readProductPage('', 'https://x.example/')).toMatchObject({ ok: false, reason: 'NO_PRICE' });
  });

  it('refuses a price it cannot read instead of guessing, even when Open Graph has one', () => {
    const html = `<meta property="og:price:amount" content="19.99"><meta property="og:price:currency" content="EUR">
      <script type="application/ld+json">{"@type":"Product","name":"Mug","offers":{"@type":"Offer","price":"19,99","priceCurrency":"EUR"}}</script>`;
    const result = readProductPage(html, 'https://mugs.example/m');
    expect(result).toMatchObject({ ok: false, reason: 'UNREADABLE_PRICE' });
    if (!result.ok) expect(result.message).toContain('19,99');
  });

  it('takes the price from Open Graph when the JSON-LD Product has none, and its availability', () => {
    const html = `<meta property="product:price:amount" content="5.5"><meta property="product:price:currency" content="EUR">
      <meta property="product:availability" content="instock">
      <script type="application/ld+json">{"@type":"Product","name":"Pin","sku":"PIN","image":"https://pins.example/p.png"}</script>`;
    expect(readProductPage(html, 'https://pins.example/p')).toMatchObject({
      ok: true,
      offer: {
        title: 'Pin',
        price: { amount: 550, currency: 'EUR' },
        availability: 'in_stock',
        item_ref: 'PIN',
        image_url: 'https://pins.example/p.png',
        source: 'open-graph',
      },
    });
  });

  it('ignores related products but checks a duplicate block of the same product', () => {
    const product = (name: string, sku: string, price: string) =>
      `<script type="application/ld+json">{"@type":"Product","name":"${name}","sku":"${sku}","offers":{"@type":"Offer","price":"${price}","priceCurrency":"USD"}}</script>`;
    const related = product('Main', 'M-1', '10.00') + product('Other', 'O-1', '99.00');
    expect(readProductPage(related, 'https://s.example/main')).toMatchObject({
      ok: true,
      offer: { title: 'Main', price: { amount: 1000, currency: 'USD' }, variants: [{ item_ref: 'M-1' }] },
    });
    const agreeing = product('Main', 'M-1', '10.00') + product('Main', 'M-1', '10');
    expect(readProductPage(agreeing, 'https://s.example/main')).toMatchObject({
      ok: true,
      offer: { price: { amount: 1000, currency: 'USD' } },
    });
    const disagreeing = product('Main', 'M-1', '10.00') + product('Main', 'M-1', '12.00');
    expect(readProductPage(disagreeing, 'https://s.example/main')).toMatchObject({
      ok: false,
      reason: 'AMBIGUOUS_PRICE',
    });
  });

  it('reads a ProductGroup’s hasVariant products', () => {
    const html = `<script type="application/ld+json">${JSON.stringify({
      '@context': 'https://schema.org',
      '@type': 'ProductGroup',
      name: 'Scarf',
      productGroupID: 'SC',
      hasVariant: [
        {
          '@type': 'Product',
          name: 'Scarf red',
          sku: 'SC-R',
          offers: { '@type': 'Offer', price: 30, priceCurrency: 'CHF', availability: 'InStock' },
        },
        {
          '@type': 'Product',
          name: 'Scarf blue',
          sku: 'SC-B',
          offers: { '@type': 'Offer', price: 32, priceCurrency: 'CHF', availability: 'OutOfStock' },
        },
      ],
    })}</script>`;
    expect(readProductPage(html, 'https://scarves.example/s?sku=SC-B')).toMatchObject({
      ok: true,
      offer: {
        title: 'Scarf',
        item_ref: 'SC-B',
        price: { amount: 3200, currency: 'CHF' },
        availability: 'out_of_stock',
        variants: [
          {
            item_ref: 'SC-R',
            title: 'Scarf red',
            price: { amount: 3000, currency: 'CHF' },
            availability: 'in_stock',
          },
          {
            item_ref: 'SC-B',
            title: 'Scarf blue',
            price: { amount: 3200, currency: 'CHF' },
            availability: 'out_of_stock',
          },
        ],
      },
    });
  });
});

describe('readShopifyProductJson', () => {
  const json = () => JSON.parse(fixture('shopify-product.js.json')) as Record<string, unknown>;
  const base = 'https://rain.example.com/products/red-rain-coat';
  const image = 'https://cdn.shopify.com/s/files/1/0040/7092/products/red-rain-coat.jpeg?v=1402604893';

  it('reads integer subunits and variants[].available; the first variant without ?variant=', () => {
    expect(readShopifyProductJson(json(), base, { currency: 'USD' })).toEqual({
      ok: true,
      offer: {
        title: 'Red Rain Coat',
        price: { amount: 12900, currency: 'USD' },
        availability: 'in_stock',
        item_ref: '794864229',
        image_url: image,
        variants: [
          {
            item_ref: '794864229',
            title: 'Small',
            price: { amount: 12900, currency: 'USD' },
            availability: 'in_stock',
          },
          {
            item_ref: '794864233',
            title: 'Medium',
            price: { amount: 12900, currency: 'USD' },
            availability: 'out_of_stock',
          },
          {
            item_ref: '794864237',
            title: 'Large',
            price: { amount: 13900, currency: 'USD' },
            availability: 'in_stock',
          },
        ],
        source: 'shopify-js',
      },
    });
  });

  it('selects an unavailable variant by ?variant= and reports it out of stock', () => {
    expect(readShopifyProductJson(json(), `${base}?variant=794864233`, { currency: 'USD' })).toMatchObject({
      ok: true,
      offer: {
        item_ref: '794864233',
        price: { amount: 12900, currency: 'USD' },
        availability: 'out_of_stock',
      },
    });
    expect(readShopifyProductJson(json(), `${base}?sku=RRC-S`, { currency: 'USD' })).toMatchObject({
      ok: true,
      offer: { item_ref: '794864229' },
    });
    expect(readShopifyProductJson(json(), `${base}?variant=1`, { currency: 'USD' })).toMatchObject({
      ok: false,
      reason: 'VARIANT_NOT_FOUND',
    });
  });

  it('keeps subunits as minor units in JPY and KWD', () => {
    const jpy = { ...json(), variants: [{ id: 1, title: 'Default Title', price: 1980, available: true }] };
    expect(readShopifyProductJson(jpy, base, { currency: 'jpy' })).toMatchObject({
      ok: true,
      offer: { price: { amount: 1980, currency: 'JPY' }, item_ref: '1' },
    });
    const kwd = { ...json(), variants: [{ id: 2, title: 'Default Title', price: 12500, available: true }] };
    expect(readShopifyProductJson(kwd, `${base}?variant=2`, { currency: 'KWD' })).toMatchObject({
      ok: true,
      offer: { price: { amount: 12500, currency: 'KWD' }, item_ref: '2' },
    });
  });

  it('refuses non-integer prices, a bad currency and a body without variants', () => {
    const fractional = { ...json(), variants: [{ id: 3, title: 'X', price: 129.5, available: true }] };
    expect(readShopifyProductJson(fractional, base, { currency: 'USD' })).toMatchObject({
      ok: false,
      reason: 'UNREADABLE_PRICE',
    });
    expect(readShopifyProductJson(json(), base, { currency: 'dollars' })).toMatchObject({
      ok: false,
      reason: 'UNREADABLE_PRICE',
    });
    expect(readShopifyProductJson({ title: 'x' }, base, { currency: 'USD' })).toMatchObject({
      ok: false,
      reason: 'NO_PRICE',
    });
    expect(readShopifyProductJson('nope', base, { currency: 'USD' })).toMatchObject({
      ok: false,
      reason: 'NO_PRICE',
    });
  });
});

describe('shopifyProductJsonUrl', () => {
  it.each([
    [
      'https://rain.example.com/products/red-rain-coat?variant=794864233',
      'https://rain.example.com/products/red-rain-coat.js',
    ],
    [
      'https://rain.example.com/collections/coats/products/red-rain-coat',
      'https://rain.example.com/products/red-rain-coat.js',
    ],
    [
      'https://rain.example.com/en-ca/products/red-rain-coat/',
      'https://rain.example.com/products/red-rain-coat.js',
    ],
    [
      'https://rain.example.com/products/red-rain-coat.js',
      'https://rain.example.com/products/red-rain-coat.js',
    ],
    [
      'https://rain.example.com/products/caf%C3%A9-mug#reviews',
      'https://rain.example.com/products/caf%C3%A9-mug.js',
    ],
    ['https://rain.example.com/products/%2e%2e', null],
    ['https://rain.example.com/products/', null],
    ['https://rain.example.com/pages/about', null],
    ['not a url', null],
  ])('%s → %s', (page, expected) => {
    expect(shopifyProductJsonUrl(page)).toBe(expected);
  });
});
