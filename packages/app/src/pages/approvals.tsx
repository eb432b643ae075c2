import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { type Approval, type ApprovalPage, client, type Problem, problemOf } from '../api.js';
import { useBrand, useZoneOf } from '../brand.js';
import { formatTime, PLATFORM_LIMITS, PLATFORM_NAMES } from '../platforms.js';
import { ProblemNotice } from '../ui.js';
import { fromInput, toInput, zoneName } from '../when.js';
import { NoBrand } from './brand/no-brand.js';

type Counts = ApprovalPage['counts'];

/** Code points, as the server counts a part's length. */
const lengthOf = (text: string) => [...text].length;

const SOURCE_NAMES: Record<Approval['source'], string> = {
  app: 'a person (in the app or through the REST API)',
  api: 'the REST API',
  mcp: 'an MCP client',
  automation: 'an automation',
};

function proposedBy(a: Approval): string {
  const parts = [SOURCE_NAMES[a.source]];
  if (a.run_id) parts.push(`agent run ${a.run_id}`);
  if (a.key_id) parts.push(`API key ${a.key_id}`);
  return parts.join(', ');
}

const channelName = (a: Approval) => `${PLATFORM_NAMES[a.channel.platform]} ${a.channel.handle}`;

/** Runs one change, then reloads the queue; reports the outcome or the failure in words. */
interface Actions {
  run(change: () => Promise<unknown>, done: string): Promise<boolean>;
  busy: boolean;
}

/** The approval queue, pending first, with counts: the home page. */
export function ApprovalsPage() {
  const { brands } = useBrand();
  const [approvals, setApprovals] = useState<Approval[] | null>(null);
  const [counts, setCounts] = useState<Counts | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  const load = useCallback(async () => {
    const page = await client.approvals.list({ limit: 100 });
    setApprovals(page.approvals);
    setCounts(page.counts);
    setNext(page.has_more ? page.next_after : null);
    setSelected(
      (prev) =>
        new Set(page.approvals.filter((a) => prev.has(a.id) && a.status === 'pending').map((a) => a.id)),
    );
  }, []);

  useEffect(() => {
    load().catch((err: unknown) => setProblem(problemOf(err)));
  }, [load]);

  const loadMore = async () => {
    if (!next) return;
    try {
      const page = await client.approvals.list({ limit: 100, after: next });
      setApprovals((prev) => [...(prev ?? []), ...page.approvals]);
      setCounts(page.counts);
      setNext(page.has_more ? page.next_after : null);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };

  const actions: Actions = {
    busy,
    async run(change, done) {
      setBusy(true);
      setProblem(null);
      setNotice('');
      try {
        await change();
        setNotice(done);
        await load();
        return true;
      } catch (err) {
        setProblem(problemOf(err));
        // What changed before the failure (an edit saved, then the approve refused) shows at once.
        await load().catch(() => undefined);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };

  const toggle = (id: string, on: boolean) =>
    setSelected((prev) => {
      const s = new Set(prev);
      if (on) s.add(id);
      else s.delete(id);
      return s;
    });

  const pending = approvals?.filter((a) => a.status === 'pending') ?? [];
  const decided = approvals?.filter((a) => a.status !== 'pending') ?? [];

  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      {counts && (
        <p class="counts">
          <strong>{counts.pending} pending</strong> · {counts.approved} approved · {counts.rejected} rejected
        </p>
      )}
      <div role="status" class="notice">
        {notice}
      </div>
      {problem && <ProblemNotice problem={problem} />}
      {approvals === null && !problem && <p class="loading">Loading the approval queue…</p>}
      {approvals !== null && pending.length === 0 && brands?.length === 0 && (
        <NoBrand what="Posts to approve" />
      )}
      {approvals !== null && pending.length === 0 && brands?.length !== 0 && (
        <div class="empty">
          <h2>No approvals waiting</h2>
          <p>
            Agents and MCP clients propose posts here. Run the weekly plan agent (
            <code>POST /v1/agents/weekly_plan/runs</code>), or ask your MCP client to draft and propose a
            post; each proposal appears in this queue for you to approve, edit or reject.
          </p>
        </div>
      )}
      {pending.length > 0 && (
        <>
          <BulkBar pending={pending} selected={selected} setSelected={setSelected} actions={actions} />
          <ul class="queue" aria-label="Pending approvals">
            {pending.map((a) => (
              <li key={a.id}>
                <ApprovalCard
                  approval={a}
                  actions={actions}
                  selected={selected.has(a.id)}
                  onSelect={(on) => toggle(a.id, on)}
                />
              </li>
            ))}
          </ul>
        </>
      )}
      {decided.length > 0 && (
        <>
          <h2>Decided</h2>
          <ul class="queue" aria-label="Decided approvals">
            {decided.map((a) => (
              <li key={a.id}>
                <ApprovalCard approval={a} actions={actions} />
              </li>
            ))}
          </ul>
        </>
      )}
      {next && (
        <button type="button" onClick={loadMore}>
          Show more approvals
        </button>
      )}
    </section>
  );
}

function BulkBar(props: {
  pending: Approval[];
  selected: Set<string>;
  setSelected: (s: Set<string>) => void;
  actions: Actions;
}) {
  const { pending, selected, setSelected, actions } = props;
  const [reason, setReason] = useState('');
  const [rejecting, setRejecting] = useState(false);
  const reasonId = useId();
  const ids = [...selected];
  const n = ids.length;
  const all = n === pending.length;
  const plural = (k: number) => (k === 1 ? '1 approval' : `${k} approvals`);

  const approve = () =>
    actions.run(
      () => client.approvals.bulk({ actions: ids.map((id) => ({ action: 'approve' as const, id })) }),
      `Approved ${plural(n)}.`,
    );
  const reject = async (e: Event) => {
    e.preventDefault();
    const ok = await actions.run(
      () =>
        client.approvals.bulk({
          actions: ids.map((id) => ({ action: 'reject' as const, id, reason: reason.trim() })),
        }),
      `Rejected ${plural(n)}.`,
    );
    if (ok) {
      setReason('');
      setRejecting(false);
    }
  };

  return (
    <fieldset class="bulk">
      <legend class="visually-hidden">Bulk actions</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => setSelected(new Set(e.currentTarget.checked ? pending.map((a) => a.id) : []))}
        />
        Select all pending
      </label>
      <span class="selected-count">{n === 0 ? 'None selected' : `${n} selected`}</span>
      <button type="button" disabled={n === 0 || actions.busy} onClick={approve}>
        Approve selected
      </button>
      {!rejecting && (
        <button
          type="button"
          class="danger"
          disabled={n === 0 || actions.busy}
          onClick={() => setRejecting(true)}
        >
          Reject selected
        </button>
      )}
      {rejecting && (
        <form class="bulk-reject" onSubmit={reject}>
          <label for={reasonId}>Reason for rejecting the selected approvals</label>
          <input
            id={reasonId}
            required
            maxLength={1000}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <button type="submit" class="danger" disabled={n === 0 || actions.busy || !reason.trim()}>
            Reject {n === 1 ? '1 approval' : `${n} approvals`}
          </button>
          <button type="button" onClick={() => setRejecting(false)}>
            Cancel
          </button>
        </form>
      )}
    </fieldset>
  );
}

function ApprovalCard(props: {
  approval: Approval;
  actions: Actions;
  selected?: boolean;
  onSelect?: (on: boolean) => void;
}) {
  const { approval: a, actions } = props;
  const [mode, setMode] = useState<'view' | 'edit' | 'reject' | 'time'>('view');
  const [texts, setTexts] = useState<string[]>(() => a.draft.parts.map((p) => p.text));
  const [reason, setReason] = useState('');
  const titleId = useId();
  const limit = PLATFORM_LIMITS[a.draft.platform];
  const pending = a.status === 'pending';
  const title = `${channelName(a)}, ${formatTime(a.slot)}`;

  const approve = () =>
    actions.run(() => client.approvals.approve(a.id), `Approved the post for ${channelName(a)}.`);
  const saveAndApprove = async (e: Event) => {
    e.preventDefault();
    const ok = await actions.run(
      async () => {
        await client.approvals.update(a.id, { parts: texts.map((text) => ({ text })) });
        await client.approvals.approve(a.id);
      },
      `Saved your edit and approved the post for ${channelName(a)}.`,
    );
    if (ok) setMode('view');
  };
  const reject = async (e: Event) => {
    e.preventDefault();
    const ok = await actions.run(
      () => client.approvals.reject(a.id, { reason: reason.trim() }),
      `Rejected the post for ${channelName(a)}.`,
    );
    if (ok) setMode('view');
  };
  const startEdit = () => {
    setTexts(a.draft.parts.map((p) => p.text));
    setMode('edit');
  };

  return (
    <article id={`approval-${a.id}`} class={`approval status-${a.status}`} aria-labelledby={titleId}>
      <header class="approval-head">
        {pending && props.onSelect && (
          <input
            type="checkbox"
            class="select"
            aria-label={`Select ${title}`}
            checked={props.selected}
            onChange={(e) => props.onSelect?.(e.currentTarget.checked)}
          />
        )}
        <h3 id={titleId}>
          <span class="channel">{channelName(a)}</span> <span class="slot">{formatTime(a.slot)}</span>
        </h3>
        <span class={`badge badge-${a.status}`}>{a.status}</span>
      </header>

      {pending && a.slot_passed && (
        <p class="stale">
          This slot has passed. Approving schedules it into the next free best-time slot on this channel.
        </p>
      )}

      {mode === 'edit' ? (
        <form class="edit-form" onSubmit={saveAndApprove}>
          <PartEditors texts={texts} limit={limit} onChange={setTexts} />
          <SubmitOrCancel
            label="Save and approve"
            kind="primary"
            disabled={actions.busy || texts.some((t) => !t.trim())}
            onCancel={() => setMode('view')}
          />
        </form>
      ) : (
        <ol class="parts" aria-label="Post as it will appear">
          {a.draft.parts.map((part, i) => (
            <li key={i} class="part">
              <p class="text">{part.text}</p>
              {part.media.length > 0 && (
                <div class="media">
                  {part.media.map((m) =>
                    m.url ? (
                      <img
                        key={m.asset_id}
                        src={m.url}
                        alt={`Attached ${m.kind}, ${m.variant} crop`}
                        loading="lazy"
                      />
                    ) : (
                      <span key={m.asset_id} class="media-missing">
                        {m.kind} {m.asset_id} (no preview)
                      </span>
                    ),
                  )}
                </div>
              )}
              <Length
                chars={part.chars}
                limit={limit}
                label={a.draft.parts.length > 1 ? `Part ${i + 1}` : 'Length'}
              />
            </li>
          ))}
        </ol>
      )}

      <dl class="facts">
        <dt>Reason</dt>
        <dd>{a.reason ?? 'None given'}</dd>
        <dt>Proposed by</dt>
        <dd>{proposedBy(a)}</dd>
        {a.decision_reason && (
          <>
            <dt>{a.status === 'rejected' ? 'Rejected because' : 'Note'}</dt>
            <dd>{a.decision_reason}</dd>
          </>
        )}
        <dt>Voice check</dt>
        <dd>
          <VoiceCheck check={a.voice_check} />
        </dd>
      </dl>

      {pending && mode === 'view' && (
        <div class="actions">
          <button type="button" class="primary" disabled={actions.busy} onClick={approve}>
            Approve
          </button>
          <button type="button" disabled={actions.busy} onClick={() => setMode('time')}>
            Approve for another time
          </button>
          <button type="button" disabled={actions.busy} onClick={startEdit}>
            Edit
          </button>
          <button type="button" class="danger" disabled={actions.busy} onClick={() => setMode('reject')}>
            Reject
          </button>
        </div>
      )}
      {pending && mode === 'time' && (
        <ApproveAt
          approval={a}
          actions={actions}
          done={`the post for ${channelName(a)}`}
          onClose={() => setMode('view')}
        />
      )}
      {pending && mode === 'reject' && (
        <form class="reject-form" onSubmit={reject}>
          <label for={`${titleId}-reason`}>Reason for rejecting</label>
          <textarea
            id={`${titleId}-reason`}
            required
            maxLength={1000}
            rows={2}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <SubmitOrCancel
            label="Reject"
            kind="danger"
            disabled={actions.busy || !reason.trim()}
            onCancel={() => setMode('view')}
          />
        </form>
      )}
    </article>
  );
}

/**
 * Approve into a time the person picks: the proposed slot while it is still ahead, else the next
 * free best-time slot on the channel (GET /v1/brands/{id}/best-times), as Approve would choose.
 */
function ApproveAt(props: { approval: Approval; actions: Actions; done: string; onClose: () => void }) {
  const a = props.approval;
  // The approval's own brand: the queue holds every brand's proposals.
  const zone = useZoneOf(a.brand_id) ?? zoneName();
  const [value, setValue] = useState(a.slot_passed ? '' : toInput(a.slot, zone));
  const id = useId();
  useEffect(() => {
    if (!a.slot_passed) return;
    client.brands.bestTimes(a.brand_id, { platform: a.channel.platform }).then(
      (b) => {
        const free = b.platforms.find((p) => p.next_free?.channel_id === a.channel.id)?.next_free;
        if (free) setValue((v) => v || toInput(free.at, zone));
      },
      () => undefined, // the person can still type a time
    );
  }, [a.id]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const slot = fromInput(value, zone);
    if (!slot) return;
    const ok = await props.actions.run(
      () => client.approvals.approve(a.id, { slot }),
      `Approved ${props.done}: it goes out ${formatTime(slot)}.`,
    );
    if (ok) props.onClose();
  };
  return (
    <form
      class="edit-form"
      aria-label="Approve for another time"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onClose();
      }}
    >
      <label for={id}>Goes out at ({zone} time)</label>
      <input
        id={id}
        type="datetime-local"
        required
        value={value}
        // biome-ignore lint/a11y/noAutofocus: the person just asked to choose the time.
        autoFocus
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <SubmitOrCancel
        label="Approve for this time"
        kind="primary"
        disabled={props.actions.busy || !fromInput(value, zone)}
        onCancel={props.onClose}
      />
    </form>
  );
}

function SubmitOrCancel(props: {
  label: string;
  kind: 'primary' | 'danger';
  disabled: boolean;
  onCancel: () => void;
}) {
  return (
    <div class="actions">
      <button type="submit" class={props.kind} disabled={props.disabled}>
        {props.label}
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** Warnings and failures in full; the passing checks folded away under their count. */
export function VoiceCheck({ check }: { check: Approval['voice_check'] }) {
  const flagged = check.checks.filter((c) => c.status !== 'pass');
  const passed = check.checks.filter((c) => c.status === 'pass');
  const item = (c: Approval['voice_check']['checks'][number]) => (
    <li key={c.id} class={`check-${c.status}`}>
      <span class="check-status">{c.status}</span> {c.message}
    </li>
  );
  return (
    <>
      {check.passed ? 'Passed' : 'Failed'}
      {flagged.length > 0 && <ul class="checks">{flagged.map(item)}</ul>}
      {passed.length > 0 && (
        <details class="checks-passed">
          <summary>{passed.length === 1 ? '1 check passed' : `${passed.length} checks passed`}</summary>
          <ul class="checks">{passed.map(item)}</ul>
        </details>
      )}
    </>
  );
}

/** An editor for each part of a post, each with its live length count. */
export function PartEditors(props: {
  texts: string[];
  limit: number;
  onChange: (update: (prev: string[]) => string[]) => void;
}) {
  return (
    <>
      {props.texts.map((text, i) => (
        <PartEditor
          key={i}
          index={i}
          count={props.texts.length}
          text={text}
          limit={props.limit}
          onInput={(t) => props.onChange((prev) => prev.map((x, j) => (j === i ? t : x)))}
        />
      ))}
    </>
  );
}

function PartEditor(props: {
  index: number;
  count: number;
  text: string;
  limit: number;
  onInput: (text: string) => void;
}) {
  const id = useId();
  const label = props.count > 1 ? `Part ${props.index + 1} text` : 'Post text';
  return (
    <div class="part-editor">
      <label for={id}>{label}</label>
      <textarea id={id} rows={5} value={props.text} onInput={(e) => props.onInput(e.currentTarget.value)} />
      <Length
        chars={lengthOf(props.text)}
        limit={props.limit}
        label={props.count > 1 ? `Part ${props.index + 1}` : 'Length'}
      />
    </div>
  );
}

function Length({ chars, limit, label }: { chars: number; limit: number; label: string }) {
  const over = chars > limit;
  return (
    <p class={over ? 'length over' : 'length'}>
      {label}: {chars} / {limit} characters{over ? ` — ${chars - limit} over the limit` : ''}
    </p>
  );
}
