import type { Platform } from '../domain.js';
import type { Counts } from '../services/metrics.js';

/**
 * One provider per platform API, on the contract open-source schedulers have proven:
 * authorise URL → token exchange → refresh → publish → status check → metrics.
 * Providers are stateless: the caller keeps the tokens (encrypted) and passes the access token in.
 */

export interface TokenSet {
  accessToken: string;
  /** Null when the platform gave none (no offline access). */
  refreshToken: string | null;
  /** Null when the platform did not say when the access token expires. */
  expiresAt: Date | null;
  scopes: string[];
}

export interface AuthorizeInput {
  state: string;
  /** The S256 challenge of a verifier the caller keeps server-side (see pkce.ts). */
  codeChallenge: string;
  redirectUri: string;
  /** The provider's default scopes when left out. */
  scopes?: string[];
}

export interface ExchangeInput {
  code: string;
  codeVerifier: string;
  redirectUri: string;
}

export interface ProviderMedia {
  mimeType: string;
  data: Uint8Array;
  /**
   * Where the platform can fetch the file itself. Instagram and Threads take no bytes: Meta
   * downloads the image from this URL, so it must be public (https, not a private address).
   */
  url?: string;
  /**
   * The id the platform gave for these same bytes on an earlier attempt of this post, still
   * valid (uploaded-media.ts). X checks it and posts it instead of uploading again; others ignore it.
   */
  uploadedId?: string;
  /** Told the platform's id, and how many seconds the platform keeps it, once an upload is finalized. */
  onUploaded?: (id: string, expiresAfterSecs: number) => void;
}

export interface ProviderPublishInput {
  accessToken: string;
  /** One part is a single post; more make a thread, each part a reply to the one before. */
  parts: string[];
  /** Attached to the first part. */
  media?: ProviderMedia[];
  /** The account's handle for the permalink; looked up when left out. */
  username?: string;
  /**
   * Ids of the first parts, already out from an earlier attempt: only the parts after them are
   * sent (the next one as a reply to the last), media is not sent again, and the result lists
   * every part with the permalink of the first.
   */
  alreadyPublished?: string[];
}

export interface ProviderPublishResult {
  /** The first post's id: what the post row records. */
  externalId: string;
  /** Every part's id, in order. */
  externalIds: string[];
  permalink: string;
}

/** The platform account a token is for: what a connected channel is named after. */
export interface ProviderAccount {
  /** The platform's stable id for the account (a reconnect must be the same account). */
  id: string;
  /** Without the `@`. */
  handle: string;
  displayName: string;
}

export interface ProviderStatus {
  externalId: string;
  /** False when the platform no longer has the post (deleted, or never existed). */
  exists: boolean;
  text: string | null;
}

/** A reply (comment) under a published post, as the platform reports it. */
export interface ProviderReply {
  externalId: string;
  /** The replier's handle; empty when the platform does not say. */
  author: string;
  text: string;
  createdAt: Date | null;
}

export interface PlatformProvider {
  readonly platform: Platform;
  readonly defaultScopes: readonly string[];
  authorizeUrl(input: AuthorizeInput): string;
  exchangeCode(input: ExchangeInput): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
  /**
   * Which account the access token is for. The connect flow needs it to name the channel and to
   * tell a reconnect of the same account from another account; a provider without it cannot be
   * connected (optional only until every provider has it).
   */
  account?(accessToken: string): Promise<ProviderAccount>;
  publish(input: ProviderPublishInput): Promise<ProviderPublishResult>;
  status(input: { accessToken: string; externalId: string }): Promise<ProviderStatus>;
  metrics(input: { accessToken: string; externalId: string }): Promise<Counts>;
  /**
   * Replies under a post by other accounts, newest first as the platform gives them; left out
   * where the API has no read for them. `accountId` is the channel's own account (its
   * `platform_user_id`), so the provider need not ask the platform who the token is for.
   */
  replies?(input: { accessToken: string; externalId: string; accountId?: string }): Promise<ProviderReply[]>;
}

/**
 * What went wrong, as the caller must act on it:
 * - `token_expired`: 401; refresh the token and try again (a refresh that fails needs the person).
 * - `forbidden`: 403; the app or account may not do this (missing scope, suspended, duplicate).
 * - `rate_limited`: 429; `retryAt` says when to try again.
 * - `unavailable`: 5xx, a timeout or no connection on a call that changes nothing; safe to retry later.
 * - `rejected`: the platform refused the request (4xx); retrying the same request will not help.
 * - `invalid`: refused before any call (too long, too many images, unsupported media type).
 * - `outcome_unknown`: a publish call got no answer; the post MAY be live. Never retry it blindly.
 */
export type ProviderErrorKind =
  | 'token_expired'
  | 'forbidden'
  | 'rate_limited'
  | 'unavailable'
  | 'rejected'
  | 'invalid'
  | 'outcome_unknown';

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly platform: Platform;
  readonly status: number | null;
  /** For `rate_limited`: when the platform says to try again, if it said. */
  readonly retryAt: Date | null;
  /** Parts of a thread that were published before the failure, in order. */
  readonly publishedIds: string[];

  constructor(
    platform: Platform,
    kind: ProviderErrorKind,
    message: string,
    extra: { status?: number | null; retryAt?: Date | null; publishedIds?: string[] } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    this.platform = platform;
    this.kind = kind;
    this.status = extra.status ?? null;
    this.retryAt = extra.retryAt ?? null;
    this.publishedIds = extra.publishedIds ?? [];
  }

  /** The same error, carrying the ids of the thread parts already out. */
  withPublished(ids: string[]): ProviderError {
    return new ProviderError(this.platform, this.kind, this.message, {
      status: this.status,
      retryAt: this.retryAt,
      publishedIds: ids,
    });
  }
}

/**
 * Why a platform that takes no GIF refuses an animated one, before any call: posted as a still it
 * would silently lose the animation, which is not what the person attached.
 */
export const gifRefused = (label: string, takes: string) =>
  `${label} takes no animated GIF (${takes}). Attach one of the asset's crops (a still of its first frame), or post the GIF on X or LinkedIn.`;
