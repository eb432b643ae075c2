import type { Platform } from '../domain.js';
import { type ProviderAccount, ProviderError } from '../publishers/provider.js';
import { DISPLAY_NAME_MAX, HANDLE_RULE } from '../schemas/channels.js';

/**
 * A platform's account answer is outside input: it is stored on the channel, returned by
 * /v1/channels and quoted in MCP text an agent reads. A hostile or broken platform (or anything
 * between us and it) could send markup, new lines that forge lines of a tool answer, or a name of
 * a megabyte. Handles and ids identify the account and build permalinks, so one that breaks the
 * rules is refused (the connect fails with `account_lookup_failed`, nothing written); a display
 * name is only read by people, so it is cleaned instead.
 */
const ACCOUNT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Control characters and line or paragraph separators become spaces: a name is one line. */
const BREAKS = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
/**
 * Format characters (bidi overrides that flip how text around the name reads, zero-width
 * spaces) go, except the zero-width joiner that emoji sequences need; `<` and `>` go too, so a
 * name never reads as markup wherever it is quoted.
 */
const INVISIBLE_OR_MARKUP = /[<>]|(?!\u200d)\p{Cf}/gu;

export function checkedAccount(platform: Platform, account: ProviderAccount): ProviderAccount {
  const refuse = (what: string) =>
    new ProviderError(
      platform,
      'invalid',
      `The ${platform} account answer has ${what}; the connect was refused.`,
    );
  if (typeof account.id !== 'string' || !ACCOUNT_ID.test(account.id))
    throw refuse('an account id out of bounds');
  const handle = typeof account.handle === 'string' ? account.handle.replace(/^@/, '') : '';
  if (handle.length === 0 || handle.length > HANDLE_RULE.max || !HANDLE_RULE.pattern.test(handle))
    throw refuse(`a handle that is not 1–${HANDLE_RULE.max} letters, digits, _ . -`);
  return { id: account.id, handle, displayName: cleanDisplayName(account.displayName) || handle };
}

/** At most DISPLAY_NAME_MAX characters, cut between code points; cut before cleaning so a huge name costs nothing. */
export function cleanDisplayName(name: unknown): string {
  if (typeof name !== 'string') return '';
  const head = Array.from(name.slice(0, DISPLAY_NAME_MAX * 4))
    .slice(0, DISPLAY_NAME_MAX * 2)
    .join('');
  const clean = head.replace(BREAKS, ' ').replace(INVISIBLE_OR_MARKUP, '').replace(/\s+/g, ' ').trim();
  return Array.from(clean).slice(0, DISPLAY_NAME_MAX).join('').trim();
}
