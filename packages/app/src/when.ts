/**
 * Times a person picks with `<input type="datetime-local">`, which holds a wall-clock time with no
 * zone: the app reads and writes it in the browser's time zone and names that zone beside the
 * field, and the API only ever sees ISO instants.
 */
export const zoneName = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

const two = (n: number) => String(n).padStart(2, '0');

/** An ISO instant as the field's value: `2026-03-04T09:00`. */
export function toInput(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** The field's value as an ISO instant; null while the field is empty or incomplete. */
export function fromInput(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
