/**
 * What the MCP call log must never keep. Agents pass credentials in places nobody planned for
 * (`inputs.accessToken`, `client_secret`, `refresh_token`), so names are matched by pattern, at
 * any depth, after folding case and dropping separators: `access_token`, `accessToken` and
 * `Access-Token` are one name. Counts such as `max_tokens` are not secrets and are kept.
 */
const SECRET_NAME =
  /(?:token|secret|password|passwd|passphrase|apikey|accesskey|privatekey|authorization|cookie|credentials?)$|^(?:auth|bearer|key|pin|otp)$|secret|password/;

/** One of our own API keys, or any bearer credential, pasted as a value under an innocent name. */
const SECRET_VALUE = /^(?:bearer\s+\S|svc_[a-z0-9_-]{16,})/i;

/** Deeper than this, nothing a person reads in the log is lost, and the walk stays bounded. */
const MAX_DEPTH = 32;

export const REDACTED = '[redacted]';

export const isSecretName = (name: string) => SECRET_NAME.test(name.toLowerCase().replace(/[^a-z0-9]/g, ''));

/** How many values a walk may still copy, and whether it had to stop short. */
interface Budget {
  left: number;
  cut: boolean;
}

function redactValue(value: unknown, depth: number, budget: Budget): unknown {
  budget.left -= 1;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (!value || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (const v of value) {
      if (budget.left <= 0) return stop(budget, copy);
      copy.push(redactValue(v, depth + 1, budget));
    }
    return copy;
  }
  // Entries, then fromEntries: a name such as `__proto__` stays a field of the copy.
  const entries: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value)) {
    if (budget.left <= 0) return Object.fromEntries(stop(budget, entries));
    entries.push([k, isSecretName(k) ? REDACTED : redactValue(v, depth + 1, budget)]);
  }
  return Object.fromEntries(entries);
}

const stop = <T>(budget: Budget, copied: T): T => {
  budget.cut = true;
  return copied;
};

/** A copy of `args` with every secret-looking field, at any depth, replaced by `[redacted]`. */
export const redactSecrets = (args: Record<string, unknown>) =>
  redactValue(args, 0, { left: Number.POSITIVE_INFINITY, cut: false }) as Record<string, unknown>;

/**
 * The same copy of at most `maxValues` values (in order, depth first); `complete` is false when it
 * stopped there. The call log keeps only the start of large arguments, and matching every name of
 * a 1 MiB object of 90,000 fields cost about three times as much as parsing it, on the event loop.
 */
export function redactSecretsUpTo(
  args: Record<string, unknown>,
  maxValues: number,
): { value: Record<string, unknown>; complete: boolean } {
  const budget: Budget = { left: maxValues, cut: false };
  const value = redactValue(args, 0, budget) as Record<string, unknown>;
  return { value, complete: !budget.cut };
}
