import type { PurchaseFilter } from '../db/dashboard-store.js';
import { CHECKOUT_STATUSES, ORDER_STATUSES } from '../schemas/common.js';
import type { FilterFields } from './dashboard-views.js';

const STATES = new Set<string>([...CHECKOUT_STATUSES, ...ORDER_STATUSES]);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The filter's query fields as typed; anything that is not one short string reads as empty. */
export function filterFields(query: Record<string, unknown>): FilterFields {
  const one = (name: string) => {
    const v = query[name];
    return typeof v === 'string' ? v.trim().slice(0, 200) : '';
  };
  return { state: one('state'), user: one('user'), env: one('env'), from: one('from'), to: one('to') };
}

/** A `YYYY-MM-DD` that names a real day, as the instant it starts (UTC), or null. */
function dayStart(date: string): Date | null {
  if (!DATE.test(date)) return null;
  const at = new Date(`${date}T00:00:00.000Z`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== date ? null : at;
}

/** Checks the filter; the error says which field is wrong and what it accepts. */
export function parseFilter(
  f: FilterFields,
): { ok: true; value: Omit<PurchaseFilter, 'limit'> } | { ok: false; error: string } {
  if (f.state && !STATES.has(f.state))
    return { ok: false, error: `State must be one of: ${[...STATES].join(', ')}.` };
  if (f.env && f.env !== 'sandbox' && f.env !== 'live')
    return { ok: false, error: "Environment must be 'sandbox' or 'live'." };
  const from = f.from ? dayStart(f.from) : undefined;
  const to = f.to ? dayStart(f.to) : undefined;
  if (from === null || to === null)
    return { ok: false, error: 'Dates must be real days written YYYY-MM-DD.' };
  if (from && to && to < from) return { ok: false, error: "'To' is before 'From'." };
  return {
    ok: true,
    value: {
      ...(f.state ? { status: f.state } : {}),
      ...(f.user ? { user: f.user } : {}),
      ...(f.env ? { env: f.env as 'sandbox' | 'live' } : {}),
      ...(from ? { from: from.toISOString() } : {}),
      // `to` is inclusive: everything before the next day starts.
      ...(to ? { before: new Date(to.getTime() + 86_400_000).toISOString() } : {}),
    },
  };
}
