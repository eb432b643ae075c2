import type { Platform } from '../domain.js';

export interface PublishRequest {
  postId: string;
  platform: Platform;
  channelHandle: string;
  parts: string[];
  mediaUrls: string[];
}

export interface PublishResult {
  externalId: string;
  permalink: string;
}

/** One interface per platform API; the sandbox publisher is the only one in this build. */
export interface Publisher {
  readonly kind: 'sandbox' | 'none';
  /** Throws AppError PUBLISHER_NOT_CONFIGURED when nothing can really publish. */
  assertCanPublish(platform: Platform): void;
  publish(req: PublishRequest): Promise<PublishResult>;
}
