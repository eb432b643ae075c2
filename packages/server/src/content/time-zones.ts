/**
 * A brand's time zone is an IANA name (`Europe/Berlin`, `Asia/Tokyo`, `UTC`): the zone the app
 * shows and picks the brand's times in. The API itself keeps ISO instants, so the zone never
 * changes what is stored, only how a person reads it.
 *
 * Intl is the authority, so the server accepts exactly the zones its own ICU knows. It also
 * accepts offsets (`+09:00`) on newer Node versions; those are not IANA names and do not follow
 * daylight saving, so the name must look like one as well.
 */
const IANA_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

function resolved(name: string): string | null {
  if (!IANA_SHAPE.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const isTimeZone = (name: string): boolean => resolved(name) !== null;

/** The zone as ICU spells it (`asia/tokyo` → `Asia/Tokyo`), so stored names compare equal. */
export const canonicalTimeZone = (name: string): string => resolved(name) ?? name;

export const DEFAULT_TIME_ZONE = 'UTC';
