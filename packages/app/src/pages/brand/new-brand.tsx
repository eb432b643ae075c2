import { useId, useState } from 'preact/hooks';
import { client } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction } from '../../hooks.js';
import { useLocation } from '../../router.js';
import { PageFrame, ProblemNotice } from '../../ui.js';
import { browserZone } from '../../when.js';
import { ZoneField } from './zone-field.js';

/**
 * Creates a brand (`POST /v1/brands`) from its name and, optionally, its voice in a sentence or
 * two; the rest of Brand Memory is filled in on the Memory page, where this page leads next.
 */
export function NewBrandPage() {
  const { reload, choose } = useBrand();
  const { navigate } = useLocation();
  const create = useAction();
  const [name, setName] = useState('');
  const [summary, setSummary] = useState('');
  const [zone, setZone] = useState(browserZone);
  const nameId = useId();
  const summaryId = useId();
  const submit = async (e: Event) => {
    e.preventDefault();
    let id = '';
    const ok = await create.run(async () => {
      const voice = summary.trim() ? { voice: { summary } } : null;
      id = (await client.brands.create({ name, time_zone: zone, ...(voice ? { memory: voice } : {}) })).id;
      await reload();
    }, `Brand "${name.trim()}" created.`);
    if (!ok) return;
    choose(id);
    navigate('/memory?created=1');
  };
  return (
    <PageFrame title="New brand">
      <p>
        A brand holds its own voice, ideas, drafts, posts, media and channels. Start with its name; you can
        fill in the rest of its Brand Memory next.
      </p>
      <form class="stack-form" onSubmit={submit}>
        <label for={nameId}>Brand name</label>
        <input
          id={nameId}
          value={name}
          required
          maxLength={120}
          autoComplete="organization"
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label for={summaryId}>Voice in a sentence or two (optional)</label>
        <textarea
          id={summaryId}
          value={summary}
          rows={3}
          maxLength={2000}
          onInput={(e) => setSummary(e.currentTarget.value)}
        />
        <ZoneField label="Time zone (times are shown and picked in it)" value={zone} onChange={setZone} />
        <div class="actions">
          <button
            type="submit"
            class="primary"
            disabled={create.busy || !name.trim()}
            aria-busy={create.busy}
          >
            {create.busy ? 'Creating brand…' : 'Create brand'}
          </button>
        </div>
        {create.problem && <ProblemNotice problem={create.problem} />}
      </form>
    </PageFrame>
  );
}
