/**
 * Upload and import limits. Defaults are documented in docs/content/media.md; a context can
 * override any of them (tests use small caps so they stay fast).
 */
export interface MediaLimits {
  imageMaxBytes: number;
  videoMaxBytes: number;
  /** Decoded pixels sharp may allocate for one input; guards against decompression bombs. */
  maxInputPixels: number;
  /** Whole from-url import, redirects included. */
  fetchTimeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_MEDIA_LIMITS: MediaLimits = {
  imageMaxBytes: 20 * 1024 * 1024,
  videoMaxBytes: 200 * 1024 * 1024,
  maxInputPixels: 60_000_000,
  fetchTimeoutMs: 20_000,
  maxRedirects: 3,
};
