import { useId, useState } from 'preact/hooks';
import { client, type Platform } from '../../api.js';
import { useLoad } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { Link } from '../../router.js';
import { Empty, Outcome, PageFrame } from '../../ui.js';
import {
  all,
  type Brand,
  type Change,
  type DraftSummary,
  type Idea,
  type IdeaStatus,
  PLATFORMS,
  useChange,
  WithBrand,
} from './common.js';
import './plan.css';

/** The pipeline, in order: one column each. */
const COLUMNS: { status: IdeaStatus; title: string }[] = [
  { status: 'idea', title: 'Idea' },
  { status: 'drafting', title: 'Drafting' },
  { status: 'approved', title: 'Approved' },
  { status: 'scheduled', title: 'Scheduled' },
  { status: 'live', title: 'Live' },
];

/**
 * The moves a person may make by hand (docs/content/states.md): one column forward or back;
 * `scheduled` and `live` follow the idea's posts. The server enforces them (409
 * INVALID_TRANSITION); the board offers only these, so no button leads to a refusal.
 */
const MOVES: Record<IdeaStatus, IdeaStatus[]> = {
  idea: ['drafting'],
  drafting: ['idea', 'approved'],
  approved: ['drafting'],
  scheduled: [],
  live: [],
};

export function IdeasPage() {
  return <WithBrand title="Ideas">{(brand) => <IdeasBoard key={brand.id} brand={brand} />}</WithBrand>;
}

function IdeasBoard({ brand }: { brand: Brand }) {
  const board = useLoad(async () => {
    const [ideas, drafts] = await Promise.all([
      all(client.ideas.list({ brand_id: brand.id, limit: 100 })),
      all(client.drafts.list({ brand_id: brand.id, limit: 100 })),
    ]);
    return { ideas, drafts };
  }, [brand.id]);
  const action = useChange(board.reload);
  const change = action.change;
  const [suggested, setSuggested] = useState<{ ideas: Idea[]; shortfall: string | null } | null>(null);

  const suggest = () =>
    change(
      async () => {
        const res = await client.ideas.generate({ brand_id: brand.id, count: 3 });
        setSuggested({ ideas: res.ideas, shortfall: res.shortfall?.message ?? null });
      },
      'Suggested ideas from your signals.',
      'suggest',
    );

  const ideas = board.data?.ideas ?? [];
  const draftsOf = (ideaId: string) => board.data?.drafts.filter((d) => d.idea_id === ideaId) ?? [];

  return (
    <PageFrame
      title="Ideas"
      problem={board.problem}
      loading={!board.data && 'the idea board'}
      actions={
        <button type="button" disabled={action.busy} onClick={suggest}>
          {action.busy && action.where === 'suggest' ? 'Suggesting…' : 'Suggest ideas'}
        </button>
      }
    >
      <Outcome action={action} where="suggest" />
      <NewIdea brand={brand} busy={action.busy} change={change} />
      <Outcome action={action} where="new-idea" />
      <NoteSignal brand={brand} busy={action.busy} change={change} />
      <Outcome action={action} where="signal" />
      {suggested && (
        <section class="suggested" aria-labelledby="suggested-title">
          <h2 id="suggested-title">Suggested from your signals</h2>
          {suggested.shortfall && <p>{suggested.shortfall}</p>}
          {suggested.ideas.length === 0 ? (
            <p>
              No new suggestions: note a signal below (or record one with{' '}
              <code>POST /v1/brands/{'{id}'}/signals</code>), then try again.
            </p>
          ) : (
            <ul>
              {suggested.ideas.map((i) => (
                <li key={i.id}>
                  <strong>{i.title}</strong>
                  {i.signal && <Cites signal={i.signal} />} — added to the Idea column.
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {ideas.length === 0 && (
        <Empty title="No ideas yet">
          <p>Write one above, or press “Suggest ideas” to turn your brand's signals into ideas.</p>
        </Empty>
      )}
      <div class="board">
        {COLUMNS.map((col) => {
          const here = ideas.filter((i) => i.status === col.status);
          return (
            <section key={col.status} class="column" aria-labelledby={`col-${col.status}`}>
              <h2 id={`col-${col.status}`}>
                {col.title} <span class="count">({here.length})</span>
              </h2>
              <ul aria-label={`${col.title} ideas`}>
                {here.map((idea) => (
                  <li key={idea.id}>
                    <IdeaCard
                      idea={idea}
                      drafts={draftsOf(idea.id)}
                      platforms={PLATFORMS.filter((p) => brand.channels.some((c) => c.platform === p))}
                      busy={action.busy}
                      change={change}
                      action={action}
                    />
                  </li>
                ))}
              </ul>
            </section>
          );
        })}
      </div>
    </PageFrame>
  );
}

function Cites({ signal }: { signal: NonNullable<Idea['signal']> }) {
  return (
    <span class="cites">
      {' '}
      (from the {signal.kind} signal “{signal.title}”)
    </span>
  );
}

function NewIdea(props: { brand: Brand; busy: boolean; change: Change }) {
  const [title, setTitle] = useState('');
  const [angle, setAngle] = useState('');
  const create = async (e: Event) => {
    e.preventDefault();
    const body = {
      brand_id: props.brand.id,
      title: title.trim(),
      ...(angle.trim() ? { angle: angle.trim() } : {}),
    };
    if (
      await props.change(() => client.ideas.create(body), `Created the idea “${body.title}”.`, 'new-idea')
    ) {
      setTitle('');
      setAngle('');
    }
  };
  return (
    <form class="new-idea" onSubmit={create}>
      <TextInput label="Idea title" maxLength={200} required value={title} onInput={setTitle} />
      <TextInput label="Angle (optional)" maxLength={500} value={angle} onInput={setAngle} />
      <button type="submit" class="primary" disabled={props.busy || !title.trim()}>
        Create idea
      </button>
    </form>
  );
}

/** A labelled one-line text box, the fields of this page's small forms. */
function TextInput(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  maxLength: number;
  required?: boolean;
}) {
  const id = useId();
  return (
    <div>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        required={props.required}
        maxLength={props.maxLength}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </div>
  );
}

const SIGNAL_KINDS = [
  { kind: 'trend', name: 'Trend' },
  { kind: 'question', name: 'Question people ask' },
  { kind: 'competitor', name: 'Competitor move' },
  { kind: 'mention', name: 'Mention' },
  { kind: 'news', name: 'News' },
] as const;

/**
 * Notes a signal by hand (POST /v1/brands/{id}/signals): something the person saw that ideas
 * should answer. "Suggest ideas" then turns it into ideas that cite it.
 */
function NoteSignal(props: { brand: Brand; busy: boolean; change: Change }) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<(typeof SIGNAL_KINDS)[number]['kind']>('trend');
  const [title, setTitle] = useState('');
  const [summary, setSummary] = useState('');
  const id = useId();
  if (!open)
    return (
      <p>
        <button type="button" onClick={() => setOpen(true)}>
          Note a signal
        </button>
      </p>
    );
  const save = async (e: Event) => {
    e.preventDefault();
    const body = { kind, title: title.trim(), summary: summary.trim() };
    const ok = await props.change(
      () => client.insights.signals.create(props.brand.id, body),
      `Noted the signal “${body.title}”. Press “Suggest ideas” to turn it into ideas.`,
      'signal',
    );
    if (ok) {
      setTitle('');
      setSummary('');
      setOpen(false);
    }
  };
  return (
    <form class="new-idea" onSubmit={save} aria-label="Note a signal">
      <div>
        <label for={`${id}-kind`}>Kind of signal</label>
        <select
          id={`${id}-kind`}
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value as typeof kind)}
        >
          {SIGNAL_KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.name}
            </option>
          ))}
        </select>
      </div>
      <TextInput label="What you noticed" maxLength={200} required value={title} onInput={setTitle} />
      <TextInput label="Details (optional)" maxLength={2000} value={summary} onInput={setSummary} />
      <button type="submit" class="primary" disabled={props.busy || !title.trim()}>
        Save signal
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

function IdeaCard(props: {
  idea: Idea;
  drafts: DraftSummary[];
  /** The brand's connected platforms: drafting for any other would make a draft nothing can post. */
  platforms: Platform[];
  busy: boolean;
  change: Change;
  /** The page's action, whose outcome shows in the card that asked for it. */
  action: Parameters<typeof Outcome>[0]['action'];
}) {
  const { idea, change } = props;
  const [drafting, setDrafting] = useState(false);
  const [platforms, setPlatforms] = useState<Set<Platform>>(new Set());
  const [made, setMade] = useState<DraftSummary[]>([]);
  const id = useId();
  const order = COLUMNS.map((c) => c.status);

  const move = (to: IdeaStatus) =>
    change(() => client.ideas.update(idea.id, { status: to }), `Moved “${idea.title}” to ${to}.`, idea.id);
  const draft = async (e: Event) => {
    e.preventDefault();
    const chosen = PLATFORMS.filter((p) => platforms.has(p));
    const ok = await change(
      async () => {
        const res = await client.drafts.generate({ idea_id: idea.id, platforms: chosen });
        setMade(res.drafts);
      },
      `Drafted “${idea.title}” for ${chosen.map((p) => PLATFORM_NAMES[p]).join(', ')}.`,
      idea.id,
    );
    if (ok) setDrafting(false);
  };
  const toggle = (p: Platform, on: boolean) =>
    setPlatforms((prev) => {
      const s = new Set(prev);
      if (on) s.add(p);
      else s.delete(p);
      return s;
    });
  const drafts = [...props.drafts, ...made.filter((m) => !props.drafts.some((d) => d.id === m.id))];

  return (
    <article class="idea" id={`idea-${idea.id}`} aria-labelledby={`${id}-t`}>
      <h3 id={`${id}-t`}>{idea.title}</h3>
      {idea.angle && <p class="angle">{idea.angle}</p>}
      {idea.signal && (
        <p class="signal">
          Cites the {idea.signal.kind} signal “{idea.signal.title}”
        </p>
      )}
      {drafts.length > 0 && (
        <ul class="idea-drafts" aria-label="Drafts">
          {drafts.map((d) => (
            <li key={d.id}>
              <Link href={`/drafts/${d.id}`}>{PLATFORM_NAMES[d.platform]} draft</Link>{' '}
              <span class="muted">({d.status})</span>
            </li>
          ))}
        </ul>
      )}
      <div class="actions">
        {MOVES[idea.status].map((to) => (
          <button key={to} type="button" disabled={props.busy} onClick={() => move(to)}>
            {order.indexOf(to) < order.indexOf(idea.status) ? `Move back to ${to}` : `Move to ${to}`}
          </button>
        ))}
        {idea.status !== 'live' && !drafting && (
          <button type="button" disabled={props.busy} onClick={() => setDrafting(true)}>
            Draft
          </button>
        )}
      </div>
      {drafting && (
        <form class="draft-form" onSubmit={draft}>
          <fieldset>
            <legend>Draft for</legend>
            {props.platforms.length === 0 && (
              <p>
                Connect a channel in <Link href="/settings#channels">Settings</Link> first.
              </p>
            )}
            {props.platforms.map((p) => (
              <label key={p} class="check">
                <input
                  type="checkbox"
                  checked={platforms.has(p)}
                  onChange={(e) => toggle(p, e.currentTarget.checked)}
                />{' '}
                {PLATFORM_NAMES[p]}
              </label>
            ))}
          </fieldset>
          <div class="actions">
            <button type="submit" class="primary" disabled={props.busy || platforms.size === 0}>
              {props.busy && props.action.where === idea.id ? 'Drafting…' : 'Create drafts'}
            </button>
            <button type="button" onClick={() => setDrafting(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <Outcome action={props.action} where={idea.id} />
    </article>
  );
}
