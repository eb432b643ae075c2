import { useId, useState } from 'preact/hooks';
import { client, type Platform } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { PLATFORM_LIMITS, PLATFORM_NAMES } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { Empty, PageFrame, ProblemNotice } from '../../ui.js';
import { excerptOf } from '../results/shared.js';
import { all, type Brand, PLATFORMS, WithBrand } from './common.js';
import { standingRejection, useRejections } from './rejections.js';
import './plan.css';

export function DraftsPage() {
  return <WithBrand title="Drafts">{(brand) => <DraftList key={brand.id} brand={brand} />}</WithBrand>;
}

/** The brand's drafts, newest first, each opening its editor; and a blank draft to start from. */
function DraftList({ brand }: { brand: Brand }) {
  const drafts = useLoad(() => all(client.drafts.list({ brand_id: brand.id, limit: 100 })), [brand.id]);
  const rejections = useRejections(brand.id);
  return (
    <PageFrame title="Drafts" problem={drafts.problem} loading={!drafts.data && 'your drafts'}>
      <NewDraft brand={brand} />
      {drafts.data?.length === 0 ? (
        <Empty title="No drafts yet">
          <p>
            Write one above, or draft an idea for your platforms on the <Link href="/ideas">Ideas</Link>{' '}
            board.
          </p>
        </Empty>
      ) : (
        <ul class="draft-list" aria-label="Drafts">
          {drafts.data?.map((d) => {
            const rejected = standingRejection(d, rejections);
            return (
              <li key={d.id}>
                <Link href={`/drafts/${d.id}`}>
                  {PLATFORM_NAMES[d.platform]} draft: {excerptOf(d.parts[0]?.text ?? '', 80) || '(empty)'}
                </Link>
                <span class="muted">
                  {' '}
                  {rejected
                    ? `rejected${rejected.decision_reason ? ` (${rejected.decision_reason})` : ''}`
                    : d.status}{' '}
                  · version {d.version}
                  {d.parts.length > 1 ? ` · ${d.parts.length} parts` : ''}
                  {d.fits ? '' : ' · over the limit'}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </PageFrame>
  );
}

function NewDraft({ brand }: { brand: Brand }) {
  const { navigate } = useLocation();
  const [platform, setPlatform] = useState<Platform>('x');
  const [text, setText] = useState('');
  const action = useAction();
  const id = useId();
  const create = async (e: Event) => {
    e.preventDefault();
    let made: string | null = null;
    await action.run(async () => {
      made = (await client.drafts.create({ brand_id: brand.id, platform, text })).id;
    }, 'Created the draft.');
    if (made) navigate(`/drafts/${made}`);
  };
  return (
    <details class="new-draft">
      <summary>Write a new draft</summary>
      <form onSubmit={create}>
        {action.problem && <ProblemNotice problem={action.problem} />}
        <label for={`${id}-p`}>Platform</label>
        <select
          id={`${id}-p`}
          value={platform}
          onChange={(e) => setPlatform(e.currentTarget.value as Platform)}
        >
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {PLATFORM_NAMES[p]} (up to {PLATFORM_LIMITS[p]} characters)
            </option>
          ))}
        </select>
        <label for={`${id}-t`}>Text</label>
        <textarea id={`${id}-t`} rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={action.busy || !text.trim()}>
          Create draft
        </button>
      </form>
    </details>
  );
}
