import type { Platform } from './api.js';
import { zoneName } from './when.js';

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

const slotFormats = new Map<string, Intl.DateTimeFormat>();

/** A time as a person reads it, in the brand's zone, named (`Tue, 3 Mar 2026, 09:00 GMT+9`). */
export function formatTime(iso: string): string {
  const zone = zoneName();
  let f = slotFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
      timeZone: zone,
    });
    slotFormats.set(zone, f);
  }
  return f.format(new Date(iso));
}
