import type { CheckoutRecord } from '../db/checkouts-store.js';
import type { ConnectionRecord } from '../db/connections-store.js';
import type { OrderRecord } from '../db/orders-store.js';
import type { Checkout, Connection, Order } from '../schemas/resources.js';

export const toCheckout = (c: CheckoutRecord): Checkout => ({
  id: c.id,
  user_id: c.user_id,
  merchant_id: c.merchant_id,
  offer_id: c.offer_id,
  product_url: c.product_url,
  route: c.route,
  status: c.status,
  line_items: c.line_items,
  totals: c.totals,
  buyer: c.buyer,
  shipping_address: c.shipping_address,
  next_action: c.status === 'requires_user_action' ? c.next_action : null,
  requires_user_confirmation: c.requires_user_confirmation,
  user_confirmed_at: c.user_confirmed_at,
  order_id: c.order_id,
  error: c.error,
  merchant_messages: c.merchant_messages,
  created_at: c.created_at,
  updated_at: c.updated_at,
});

export const toOrder = (o: OrderRecord): Order => ({
  id: o.id,
  checkout_id: o.checkout_id,
  user_id: o.user_id,
  merchant_id: o.merchant_id,
  status: o.status,
  line_items: o.line_items,
  totals: o.totals,
  shipping_address: o.shipping_address,
  merchant_order_ref: o.merchant_order_ref,
  created_at: o.created_at,
  updated_at: o.updated_at,
});

export const toConnection = (c: ConnectionRecord): Connection => ({
  id: c.id,
  user_id: c.user_id,
  merchant_id: c.merchant_id,
  status: c.status,
  created_at: c.created_at,
});
