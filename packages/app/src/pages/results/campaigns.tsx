import { useId, useState } from 'preact/hooks';
import { type Brand, client } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { Link, useLocation } from '../../router.js';
import { Empty, Notice, PageFrame, ProblemNotice } from '../../ui.js';
import { WithBrand } from './shared.js';

/** The brand's campaigns, newest first, and a form to start one. */
export function CampaignsPage() {
  return (
    <PageFrame title="Campaigns">
      <WithBrand what="Campaigns">{(brand) => <Campaigns brand={brand} />}</WithBrand>
    </PageFrame>
  );
}

/** "1 Mar 2026 to 31 Mar 2026", "from 1 Mar 2026", or nothing. */
export function datesOf(c: { starts_on: string | null; ends_on: string | null }): string {
  if (c.starts_on && c.ends_on) return `${c.starts_on} to ${c.ends_on}`;
  if (c.starts_on) return `from ${c.starts_on}`;
  if (c.ends_on) return `until ${c.ends_on}`;
  return '';
}

function Campaigns({ brand }: { brand: Brand }) {
  const { data, problem } = useLoad(
    async () => await client.campaigns.list({ brand_id: brand.id, limit: 100 }),
    [brand.id],
  );
  const { navigate } = useLocation();
  const create = useAction();
  const [name, setName] = useState('');
  const [goal, setGoal] = useState('');
  const nameId = useId();
  const goalId = useId();
  const submit = async (e: Event) => {
    e.preventDefault();
    let id = '';
    const ok = await create.run(async () => {
      const c = await client.campaigns.create({ brand_id: brand.id, name, ...(goal.trim() ? { goal } : {}) });
      id = c.id;
    }, `Campaign "${name}" created.`);
    if (ok) navigate(`/campaigns/${encodeURIComponent(id)}`);
  };
  return (
    <>
      {problem && <ProblemNotice problem={problem} />}
      {!data && !problem && <p class="loading">Loading campaigns…</p>}
      {data && data.campaigns.length === 0 && (
        <Empty title="No campaigns yet">
          <p>A campaign gathers ideas and notes on one canvas. Start one with the form below.</p>
        </Empty>
      )}
      {data && data.campaigns.length > 0 && (
        <ul class="campaign-list">
          {data.campaigns.map((c) => (
            <li key={c.id}>
              <h2>
                <Link href={`/campaigns/${encodeURIComponent(c.id)}`}>{c.name}</Link>
              </h2>
              {c.goal && <p>{c.goal}</p>}
              {datesOf(c) && <p class="muted">{datesOf(c)}</p>}
            </li>
          ))}
        </ul>
      )}
      <form class="stack-form" onSubmit={submit}>
        <h2>New campaign</h2>
        <Notice text={create.notice} />
        {create.problem && <ProblemNotice problem={create.problem} />}
        <label for={nameId}>Campaign name</label>
        <input
          id={nameId}
          value={name}
          required
          maxLength={120}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label for={goalId}>Goal (optional)</label>
        <textarea
          id={goalId}
          value={goal}
          rows={2}
          maxLength={1000}
          onInput={(e) => setGoal(e.currentTarget.value)}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={create.busy || !name.trim()}>
            Create campaign
          </button>
        </div>
      </form>
    </>
  );
}
