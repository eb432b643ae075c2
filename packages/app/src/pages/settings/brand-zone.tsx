import { useState } from 'preact/hooks';
import { type Brand, client } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction } from '../../hooks.js';
import { Notice, ProblemNotice } from '../../ui.js';
import { ZoneField } from '../brand/zone-field.js';

/**
 * The brand's time zone (`PATCH /v1/brands/{id}` with `time_zone`): every time in the app is shown
 * and picked in it. Stored times are instants, so changing the zone moves no post.
 */
export function BrandZoneSection({ brand }: { brand: Brand }) {
  const { reload } = useBrand();
  const [zone, setZone] = useState(brand.time_zone);
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    await act.run(async () => {
      await client.brands.update(brand.id, { time_zone: zone });
      await reload();
    }, `Saved: ${brand.name}'s times are shown in ${zone}.`);
  };
  return (
    <section id="brand" aria-labelledby="brand-title">
      <h2 id="brand-title">Brand</h2>
      <form class="stack-form" onSubmit={submit} aria-label="Brand time zone">
        <p class="muted">
          The app shows and picks every time of {brand.name} in its time zone. Posts keep their moment in time
          when it changes.
        </p>
        <ZoneField label={`Time zone of ${brand.name}`} value={zone} onChange={setZone} />
        <div class="actions">
          <button
            type="submit"
            class="primary"
            disabled={act.busy || zone === brand.time_zone}
            aria-busy={act.busy}
          >
            {act.busy ? 'Saving…' : 'Save time zone'}
          </button>
        </div>
        <Notice text={act.notice} />
        {act.problem && <ProblemNotice problem={act.problem} />}
      </form>
    </section>
  );
}
