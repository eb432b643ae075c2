import { useId } from 'preact/hooks';

/**
 * The zones Intl knows, as IANA names. `UTC` is not among the canonical names some engines list,
 * and a brand's stored zone may be an alias the list spells otherwise, so both are added.
 */
function zones(extra: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set([...known, 'UTC', extra])].sort();
}

/** A labelled choice of IANA time zone. */
export function ZoneField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (zone: string) => void;
}) {
  const id = useId();
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {zones(value).map((z) => (
          <option key={z} value={z}>
            {z}
          </option>
        ))}
      </select>
    </>
  );
}
