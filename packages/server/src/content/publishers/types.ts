import type { Platform } from '../domain.js';
import type { Counts } from '../services/metrics.js';
import type { ProviderReply } from './provider.js';

export interface PublishMedia {
  assetId: string;
  variant: string;
}

export interface PublishRequest {
  postId: string;
  channelId: string;
  platform: Platform;
  channelHandle: string;
  parts: string[];
  /** On the first part, from the media library. */
  media: PublishMedia[];
  /** Ids of the thread parts already out from an earlier attempt: only the rest is sent. */
  alreadyPublished: string[];
  /**
   * A person's publish-now is waiting on this call in their HTTP request: waits on the platform's
   * own processing are kept short (X: IN_REQUEST_PROCESSING_WAIT_MS) and the background loop
   * finishes a slow one. False for the background loop.
   */
  inRequest?: boolean;
}

export interface PublishResult {
  externalId: string;
  /** Every part's id, in order. */
  externalIds: string[];
  permalink: string;
}

/**
 * Why a publish did not finish, as the caller must act on it:
 * - `retry`: nothing new went out and trying later may work (429, a 5xx on a call that changed
 *   nothing); `retryAt` says when.
 * - `failed`: the platform (or a check before it) refused; retrying the same post will not help.
 * - `unconfirmed`: the platform got the request but no answer came back. The post MAY be live;
 *   it is never sent again without the person.
 */
export type PublishOutcome = 'retry' | 'failed' | 'unconfirmed';

export class PublishError extends Error {
  readonly outcome: PublishOutcome;
  /** A documented error code (docs/content/errors.md). */
  readonly code: string;
  readonly retryAt: Date | null;
  /** Thread parts that are out, in order, the earlier attempts' included. */
  readonly publishedIds: string[];

  constructor(
    outcome: PublishOutcome,
    code: string,
    message: string,
    extra: { retryAt?: Date | null; publishedIds?: string[] } = {},
  ) {
    super(message);
    this.name = 'PublishError';
    this.outcome = outcome;
    this.code = code;
    this.retryAt = extra.retryAt ?? null;
    this.publishedIds = extra.publishedIds ?? [];
  }
}

/** A published post on the platform, as the snapshot schedule reads it. */
export interface PublishedRef {
  channelId: string;
  platform: Platform;
  externalId: string;
}

/** One interface per platform API: the sandbox publisher, or the live one over the providers. */
export interface Publisher {
  readonly kind: 'sandbox' | 'live' | 'none';
  /** Throws AppError PUBLISHER_NOT_CONFIGURED (or OAUTH_NOT_CONFIGURED) when nothing can really publish. */
  assertCanPublish(platform: Platform): void;
  /** Throws PublishError when the post did not (or may not have) go out. */
  publish(req: PublishRequest): Promise<PublishResult>;
  /** Live only: the post's counts now, read from the platform. */
  metrics?(ref: PublishedRef): Promise<Counts>;
  /** Live only, when the platform's provider can list replies. */
  replies?(ref: PublishedRef): Promise<ProviderReply[] | null>;
  /** Live only: whether the platform has the post (for a person checking an unconfirmed post). */
  exists?(ref: PublishedRef): Promise<boolean>;
}
