import { DAY } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { CheckoutRecord } from '../db/checkouts-store.js';
import type { CommerceStores } from '../db/stores.js';
import type { Money } from '../schemas/common.js';
import type { ApprovalRules } from '../schemas/resources.js';

export const money = (m: Money) => `${(m.amount / 100).toFixed(2)} ${m.currency}`;

export function checkAllowedMerchant(rules: ApprovalRules, merchantId: string): void {
  if (rules.allowed_merchants && !rules.allowed_merchants.includes(merchantId)) {
    throw new AppError(
      403,
      'MERCHANT_NOT_ALLOWED',
      `The user approved purchases only from ${rules.allowed_merchants.join(', ')}; '${merchantId}' is not one of them.`,
    );
  }
}

/** Totals above `confirm_above` (or in another currency than the rules) need the user's own yes. */
export function needsUserConfirmation(rules: ApprovalRules, total: Money): boolean {
  if (rules.confirm_above === undefined) return false;
  return total.currency !== rules.currency || total.amount > rules.confirm_above;
}

/**
 * Spending limits, checked at confirm inside the confirm transaction so two confirms cannot
 * both fit under the daily limit. Checkouts already handed to the store count as spent while
 * they are `confirming` (the store may have placed the order); one a crash interrupted is
 * finished by recovery, after which only its order, if the store placed one, counts.
 */
export async function checkSpendingLimits(s: CommerceStores, c: CheckoutRecord, now: Date): Promise<void> {
  const rules = c.rules;
  const total = c.totals.total;
  if (rules.max_per_order === undefined && rules.max_per_day === undefined) return;
  const limit = (amount: number) => money({ amount, currency: rules.currency ?? 'USD' });
  if (total.currency !== rules.currency) {
    throw new AppError(
      422,
      'RULES_CURRENCY_MISMATCH',
      `The user's spending limits are in ${rules.currency}, but this store charges ${total.currency}; the order cannot be checked against them.`,
    );
  }
  if (rules.max_per_order !== undefined && total.amount > rules.max_per_order) {
    throw new AppError(
      422,
      'MAX_PER_ORDER_EXCEEDED',
      `The total ${money(total)} is above the user's limit of ${limit(rules.max_per_order)} per order. No order was placed.`,
    );
  }
  if (rules.max_per_day !== undefined) {
    const since = new Date(now.getTime() - DAY).toISOString();
    const spent =
      (await s.orders.spentSince(c.user_id, since, total.currency)) +
      (await s.checkouts.sumConfirmingSince(c.user_id, since, total.currency));
    if (spent + total.amount > rules.max_per_day) {
      throw new AppError(
        422,
        'MAX_PER_DAY_EXCEEDED',
        `The user has spent ${money({ amount: spent, currency: total.currency })} in the last 24 hours; ${money(total)} more would pass their limit of ${limit(rules.max_per_day)} per day. No order was placed.`,
      );
    }
  }
}
