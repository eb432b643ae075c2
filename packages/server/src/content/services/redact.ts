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

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (!value || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, isSecretName(k) ? REDACTED : redactValue(v, depth + 1)]),
  );
}

/** A copy of `args` with every secret-looking field, at any depth, replaced by `[redacted]`. */
export const redactSecrets = (args: Record<string, unknown>) =>
  redactValue(args, 0) as Record<string, unknown>;
