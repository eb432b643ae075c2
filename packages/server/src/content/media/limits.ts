import { PLATFORM_MEDIA } from './platforms.js';

/**
 * Upload and import limits. Defaults are documented in docs/content/media.md; a context can
 * override any of them (tests use small caps so they stay fast).
 */
export interface MediaLimits {
  imageMaxBytes: number;
  videoMaxBytes: number;
  /** Decoded pixels sharp may allocate for one input; guards against decompression bombs. */
  maxInputPixels: number;
  /**
   * Largest animated GIF kept: the most any platform posts as an animation (X's 15 MB). A GIF over
   * it, re-encoded and as uploaded, is refused at upload rather than at every publish.
   */
  gifMaxBytes: number;
  /** Whole from-url import, redirects included. */
  fetchTimeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_MEDIA_LIMITS: MediaLimits = {
  imageMaxBytes: 20 * 1024 * 1024,
  videoMaxBytes: 200 * 1024 * 1024,
  maxInputPixels: 60_000_000,
  gifMaxBytes: Math.max(...Object.values(PLATFORM_MEDIA).map((rules) => rules.gifMaxBytes ?? 0)),
  fetchTimeoutMs: 20_000,
  maxRedirects: 3,
};
