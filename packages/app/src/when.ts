/**
 * Every time the app shows or picks is in the current brand's time zone (an IANA name on the
 * brand), so a manager reads the same 09:00 wherever their browser is; the field's label names
 * the zone, and the API only ever sees ISO instants.
 *
 * The zone is module state rather than a prop on every time: one brand is shown at a time, the
 * brand provider sets it before any page renders (`useBrandZone`), and a brand switch re-renders
 * every page that shows the brand's times.
 */
export const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

let current = browserZone();

/** The zone times are shown and picked in: the current brand's, else the browser's. */
export const zoneName = (): string => current;

export function setZone(zone: string | null | undefined): void {
  current = zone || browserZone();
}

const two = (n: number) => String(n).padStart(2, '0');

const partsFormats = new Map<string, Intl.DateTimeFormat>();
function partsFormat(zone: string) {
  let f = partsFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    partsFormats.set(zone, f);
  }
  return f;
}

export interface WallClock {
  /** `YYYY-MM-DD` */
  day: string;
  hour: number;
  minute: number;
}

/** What a clock on the wall in `zone` reads at this instant. */
export function wallClock(at: string | Date, zone = current): WallClock {
  const p = Object.fromEntries(
    partsFormat(zone)
      .formatToParts(new Date(at))
      .map((x) => [x.type, x.value]),
  );
  return { day: `${p.year}-${p.month}-${p.day}`, hour: Number(p.hour), minute: Number(p.minute) };
}

/**
 * The instant a wall clock in `zone` reads `day` `hour:minute`. The zone's offset is read at a
 * first guess and corrected once, which lands right on both sides of a daylight-saving change (a
 * time skipped by the change moves forward by the jump, as clocks do).
 */
export function instantOf(day: string, hour: number, minute: number, zone = current): Date {
  const wanted = Date.parse(`${day}T${two(hour)}:${two(minute)}:00Z`);
  const offsetAt = (t: number) => {
    const w = wallClock(new Date(t), zone);
    return Date.parse(`${w.day}T${two(w.hour)}:${two(w.minute)}:00Z`) - t;
  };
  let t = wanted - offsetAt(wanted);
  t = wanted - offsetAt(t);
  return new Date(t);
}

/** An ISO instant as a `datetime-local` field's value in the zone: `2026-03-04T09:00`. */
export function toInput(iso: string, zone = current): string {
  const w = wallClock(iso, zone);
  return `${w.day}T${two(w.hour)}:${two(w.minute)}`;
}

/** The field's value (a wall-clock time in the zone) as an ISO instant; null while incomplete. */
export function fromInput(value: string, zone = current): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!m) return null;
  const d = instantOf(m[1] as string, Number(m[2]), Number(m[3]), zone);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
