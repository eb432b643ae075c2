import type { MerchantStatus, StoreRoute, Tier } from '../schemas/common.js';
import type { Merchant } from '../schemas/resources.js';

export const CAPABILITIES: Record<Tier, Merchant['capabilities']> = {
  // Major retailers' prices are read in the user's own browser, so there are no server-side offers.
  major: { offers: false, checkout: true, orders: true },
  protocol: { offers: true, checkout: true, orders: true },
  long_tail: { offers: true, checkout: true, orders: false },
};

const ROUTE_FOR: Record<Tier, StoreRoute> = {
  major: 'device_session',
  protocol: 'ucp',
  long_tail: 'browser',
};

function store(
  id: string,
  name: string,
  domain: string,
  tier: Tier,
  category: string,
  extra: { status?: MerchantStatus; requires_connection?: boolean } = {},
): Merchant {
  return {
    id,
    name,
    domain,
    tier,
    route: ROUTE_FOR[tier],
    category,
    requires_connection: extra.requires_connection ?? false,
    capabilities: CAPABILITIES[tier],
    status: extra.status ?? 'healthy',
  };
}

/** Major retailers and named stores, in the order the first page lists them. */
export const REGISTRY: readonly Merchant[] = Object.freeze([
  store('amazon', 'Amazon', 'amazon.com', 'major', 'general merchandise'),
  store('walmart', 'Walmart', 'walmart.com', 'major', 'general merchandise'),
  store('target', 'Target', 'target.com', 'major', 'general merchandise'),
  store('best-buy', 'Best Buy', 'bestbuy.com', 'major', 'electronics'),
  store('costco', 'Costco', 'costco.com', 'major', 'warehouse club', { requires_connection: true }),
  store('home-depot', 'The Home Depot', 'homedepot.com', 'major', 'home improvement'),
  store('lowes', "Lowe's", 'lowes.com', 'major', 'home improvement'),
  store('apple', 'Apple', 'apple.com', 'major', 'electronics'),
  store('ikea', 'IKEA', 'ikea.com', 'major', 'furniture', { status: 'degraded' }),
  store('wayfair', 'Wayfair', 'wayfair.com', 'major', 'furniture'),
  store('macys', "Macy's", 'macys.com', 'major', 'department store'),
  store('nordstrom', 'Nordstrom', 'nordstrom.com', 'major', 'apparel'),
  store('sephora', 'Sephora', 'sephora.com', 'major', 'beauty'),
  store('chewy', 'Chewy', 'chewy.com', 'major', 'pet supplies'),
  store('allbirds', 'Allbirds', 'allbirds.com', 'protocol', 'footwear'),
  store('glossier', 'Glossier', 'glossier.com', 'protocol', 'beauty'),
  store('gymshark', 'Gymshark', 'gymshark.com', 'protocol', 'activewear'),
  store('brooklinen', 'Brooklinen', 'brooklinen.com', 'protocol', 'bedding'),
  store('bombas', 'Bombas', 'bombas.com', 'protocol', 'apparel'),
  store('warby-parker', 'Warby Parker', 'warbyparker.com', 'protocol', 'eyewear'),
  store('everlane', 'Everlane', 'everlane.com', 'protocol', 'apparel'),
  store('away', 'Away', 'awaytravel.com', 'protocol', 'luggage'),
  store('rothys', "Rothy's", 'rothys.com', 'protocol', 'footwear'),
  store('outdoor-voices', 'Outdoor Voices', 'outdoorvoices.com', 'protocol', 'activewear'),
  store('fellow', 'Fellow', 'fellowproducts.com', 'protocol', 'coffee equipment'),
  store('our-place', 'Our Place', 'fromourplace.com', 'protocol', 'cookware', { status: 'degraded' }),
  store('rei', 'REI', 'rei.com', 'long_tail', 'outdoor gear', { requires_connection: true }),
  store('powells', "Powell's Books", 'powells.com', 'long_tail', 'books'),
  store('sweetwater', 'Sweetwater', 'sweetwater.com', 'long_tail', 'musical instruments'),
  store('crutchfield', 'Crutchfield', 'crutchfield.com', 'long_tail', 'audio and video'),
  store('king-arthur', 'King Arthur Baking', 'kingarthurbaking.com', 'long_tail', 'baking supplies'),
  store('uncommon-goods', 'Uncommon Goods', 'uncommongoods.com', 'long_tail', 'gifts'),
  store('bookshop', 'Bookshop.org', 'bookshop.org', 'long_tail', 'books'),
  store('adafruit', 'Adafruit', 'adafruit.com', 'long_tail', 'electronics kits'),
  store('blue-bottle', 'Blue Bottle Coffee', 'bluebottlecoffee.com', 'long_tail', 'coffee'),
  store('zingermans', "Zingerman's", 'zingermans.com', 'long_tail', 'specialty food', { status: 'down' }),
]);

/** Sandbox stores: one per tier and route, one that needs a connection, and one that is down. */
export const SANDBOX_STORES: readonly Merchant[] = Object.freeze(
  [
    store('sandbox-megamart', 'Sandbox Megamart', 'megamart.sandbox.test', 'major', 'general merchandise'),
    store(
      'sandbox-protocol',
      'Sandbox Protocol Shop',
      'protocol-shop.sandbox.test',
      'protocol',
      'home goods',
    ),
    store('sandbox-corner', 'Sandbox Corner Store', 'corner-store.sandbox.test', 'long_tail', 'gifts'),
    store(
      'sandbox-members',
      'Sandbox Members Club',
      'members-club.sandbox.test',
      'protocol',
      'warehouse club',
      {
        requires_connection: true,
      },
    ),
    store('sandbox-outage', 'Sandbox Outage Store', 'outage.sandbox.test', 'protocol', 'electronics', {
      status: 'down',
    }),
  ].map((m) => ({ ...m, sandbox: true as const })),
);

/**
 * Any host under this domain is an unlisted sandbox store that speaks the checkout protocol:
 * it joins the catalog the first time a product link on it is used.
 */
export const SANDBOX_DISCOVERY_SUFFIX = '.shops.sandbox.test';

const CATEGORIES = [
  'apparel',
  'home goods',
  'books',
  'toys',
  'coffee',
  'beauty',
  'outdoor gear',
  'pet supplies',
];

export function discoveredSandboxStore(domain: string, hash: number): Merchant {
  const label = domain.slice(0, -SANDBOX_DISCOVERY_SUFFIX.length).split('.').pop() ?? domain;
  const name = label
    .split('-')
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
  return {
    id: `ucp_${domain}`,
    name: name || domain,
    domain,
    tier: 'protocol',
    route: 'ucp',
    category: CATEGORIES[hash % CATEGORIES.length] ?? null,
    requires_connection: false,
    capabilities: CAPABILITIES.protocol,
    status: 'healthy',
    sandbox: true,
  };
}
