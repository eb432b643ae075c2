import type { Platform } from './api.js';

/** How each platform is named to a person. */
export const PLATFORM_NAMES: Record<Platform, string> = {
  x: 'X',
  linkedin: 'LinkedIn',
  instagram: 'Instagram',
  threads: 'Threads',
};

/**
 * Characters per part each platform accepts (docs/content/limits.md). The server enforces them;
 * the app shows them so a person sees a long part before the platform refuses it.
 */
export const PLATFORM_LIMITS: Record<Platform, number> = {
  x: 280,
  linkedin: 3000,
  instagram: 2200,
  threads: 500,
};

const slotFormat = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});

export const formatTime = (iso: string): string => slotFormat.format(new Date(iso));
