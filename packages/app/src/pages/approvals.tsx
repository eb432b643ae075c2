import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Approval, type ApprovalPage, client, type Problem, problemOf } from '../api.js';
import { useBrand, useZoneOf } from '../brand.js';
import { formatTime, PLATFORM_LIMITS, PLATFORM_NAMES } from '../platforms.js';
import { Length, lengthOf, PostPreview } from '../preview.js';
import { Link } from '../router.js';
import { ProblemNotice } from '../ui.js';
import { fromInput, toInput, zoneName } from '../when.js';
import { runPath } from './agents/words.js';
import { NoBrand } from './brand/no-brand.js';

type Counts = ApprovalPage['counts'];

const SOURCE_NAMES: Record<Approval['source'], string> = {
  app: 'a person (in the app or through the REST API)',
  api: 'the REST API',
  mcp: 'an MCP client',
  automation: 'an automation',
};

/** Who proposed it, in words: the agent run is a link, not an id. */
function ProposedBy({ approval: a }: { approval: Approval }) {
  return (
    <>
      {SOURCE_NAMES[a.source]}
      {a.run_id && (
        <>
          , in <Link href={runPath(a.run_id)}>an agent run</Link>
        </>
      )}
      {a.key_id && ', with an API key'}
    </>
  );
}

const channelName = (a: Approval) => `${PLATFORM_NAMES[a.channel.platform]} ${a.channel.handle}`;

/**
 * Runs one change, then reloads the queue; reports the outcome or the failure in words next to
 * the control that asked for it: `where` is the approval's id, or BULK for the bulk bar.
 */
interface Actions {
  run(change: () => Promise<unknown>, done: string, where: string): Promise<boolean>;
  busy: boolean;
  /** Where the running or last change came from, and how it went. */
  where: string;
  notice: string;
  problem: Problem | null;
}
const BULK = 'bulk';

/** The outcome of the last change, shown where it was asked for. The status region is always there, so it is read out. */
function Outcome({ actions, where }: { actions: Actions; where: string }) {
  const here = actions.where === where;
  return (
    <>
      <div role="status" class="notice">
        {here ? actions.notice : ''}
      </div>
      {here && actions.problem && <ProblemNotice problem={actions.problem} />}
    </>
  );
}

/**
 * The queue's keys (documented in docs/content/app.md): J and K move between pending
 * approvals, A approves, E edits and R rejects the one in focus. Never inside a text field, and
 * never with a modifier, so typing a reason or a browser shortcut does not trigger them.
 */
const SHORTCUTS: Record<string, 'next' | 'previous' | 'approve' | 'edit' | 'reject'> = {
  j: 'next',
  k: 'previous',
  a: 'approve',
  e: 'edit',
  r: 'reject',
};
const pendingCards = () => [...document.querySelectorAll<HTMLElement>('.queue-pending > li > article')];

/** Focuses the pending card at `index` (or the last), unless the person already moved the focus on. */
function focusPendingCard(index: number) {
  if (document.activeElement && document.activeElement !== document.body) return;
  const cards = pendingCards();
  cards[Math.min(index, cards.length - 1)]?.focus();
}

function useQueueShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const what = SHORTCUTS[e.key.toLowerCase()];
      if (!what || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')) return;
      const cards = pendingCards();
      if (cards.length === 0) return;
      const current = cards.findIndex((c) => c.contains(document.activeElement));
      e.preventDefault();
      if (what === 'next' || what === 'previous' || current < 0) {
        const step = what === 'previous' ? -1 : 1;
        const next = current < 0 ? 0 : Math.min(cards.length - 1, Math.max(0, current + step));
        cards[next]?.focus();
        return;
      }
      cards[current]?.querySelector<HTMLButtonElement>(`[data-shortcut="${what}"]:not([disabled])`)?.click();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

/** The approval queue, pending first, with counts: the home page. */
export function ApprovalsPage() {
  const { brands } = useBrand();
  const [approvals, setApprovals] = useState<Approval[] | null>(null);
  const [counts, setCounts] = useState<Counts | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [notice, setNotice] = useState('');
  const [actionProblem, setActionProblem] = useState<Problem | null>(null);
  const [where, setWhere] = useState('');
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  useQueueShortcuts();

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
    where,
    notice,
    problem: actionProblem,
    async run(change, done, at) {
      setBusy(true);
      setWhere(at);
      setActionProblem(null);
      setNotice('');
      const index = pending.findIndex((p) => p.id === at);
      try {
        await change();
        // The queue first, then the words: what is said (and read out) matches what is shown.
        await load();
        setNotice(done);
        // The decided card left the queue: the focus goes on to the card now in its place.
        if (index >= 0) requestAnimationFrame(() => focusPendingCard(index));
        return true;
      } catch (err) {
        setActionProblem(problemOf(err));
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
      <p class="muted shortcuts">
        Keys: <kbd>J</kbd> next, <kbd>K</kbd> previous, <kbd>A</kbd> approve, <kbd>E</kbd> edit, <kbd>R</kbd>{' '}
        reject.
      </p>
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
      {/* Beside the bulk bar, and still there when the bulk action emptied the queue. */}
      <Outcome actions={actions} where={BULK} />
      {pending.length > 0 && (
        <>
          <BulkBar pending={pending} selected={selected} setSelected={setSelected} actions={actions} />
          <ul class="queue queue-pending" aria-label="Pending approvals">
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
      BULK,
    );
  const reject = async (e: Event) => {
    e.preventDefault();
    const ok = await actions.run(
      () =>
        client.approvals.bulk({
          actions: ids.map((id) => ({ action: 'reject' as const, id, reason: reason.trim() })),
        }),
      `Rejected ${plural(n)}.`,
      BULK,
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
        {actions.busy && actions.where === BULK && !rejecting ? 'Approving…' : 'Approve selected'}
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

  const working = actions.busy && actions.where === a.id;
  const reasonBox = useRef<HTMLTextAreaElement>(null);
  const opener = useRef<string | null>(null);
  // Reject puts the focus in the reason field; Edit in the text; closing either gives it back to the button.
  // A layout effect, so a key pressed at once after opening reaches the field, not the button.
  useLayoutEffect(() => {
    if (mode === 'reject') reasonBox.current?.focus();
    else if (mode === 'edit')
      document.querySelector<HTMLElement>(`#approval-${CSS.escape(a.id)} .edit-form textarea`)?.focus();
    else if (mode === 'view' && opener.current)
      document
        .querySelector<HTMLElement>(`#approval-${CSS.escape(a.id)} [data-shortcut="${opener.current}"]`)
        ?.focus();
  }, [mode]);
  const open = (next: 'edit' | 'reject' | 'time') => {
    opener.current = next;
    setMode(next);
  };
  const approve = () =>
    actions.run(() => client.approvals.approve(a.id), `Approved the post for ${channelName(a)}.`, a.id);
  const media = a.draft.parts[0]?.media ?? [];
  // Which of the edit form's two saves is running, so only its button says so.
  const [saving, setSaving] = useState<'save' | 'approve'>('approve');
  const save = async () => {
    setSaving('save');
    const ok = await actions.run(
      () => client.approvals.update(a.id, { parts: texts.map((text) => ({ text })) }),
      `Saved your edit to the post for ${channelName(a)}; it is still waiting for approval.`,
      a.id,
    );
    if (ok) setMode('view');
  };
  const saveAndApprove = async (e: Event) => {
    e.preventDefault();
    setSaving('approve');
    const ok = await actions.run(
      async () => {
        await client.approvals.update(a.id, { parts: texts.map((text) => ({ text })) });
        await client.approvals.approve(a.id);
      },
      `Saved your edit and approved the post for ${channelName(a)}.`,
      a.id,
    );
    if (ok) setMode('view');
  };
  const reject = async (e: Event) => {
    e.preventDefault();
    const ok = await actions.run(
      () => client.approvals.reject(a.id, { reason: reason.trim() }),
      `Rejected the post for ${channelName(a)}.`,
      a.id,
    );
    if (ok) setMode('view');
  };
  const startEdit = () => {
    setTexts(a.draft.parts.map((p) => p.text));
    open('edit');
  };
  const cancel = () => setMode('view');
  const cancelOnEscape = (e: KeyboardEvent) => {
    if (e.key === 'Escape') cancel();
  };

  return (
    <article
      id={`approval-${a.id}`}
      class={`approval status-${a.status}`}
      aria-labelledby={titleId}
      tabIndex={pending ? -1 : undefined}
    >
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
        <form class="edit-form" onSubmit={saveAndApprove} onKeyDown={cancelOnEscape}>
          <PartEditors texts={texts} limit={limit} onChange={setTexts} />
          <PostPreview platform={a.draft.platform} texts={texts} media={media} />
          <div class="actions">
            <button type="submit" class="primary" disabled={actions.busy || texts.some((t) => !t.trim())}>
              {working && saving === 'approve' ? 'Saving and approving…' : 'Save and approve'}
            </button>
            <button type="button" disabled={actions.busy || texts.some((t) => !t.trim())} onClick={save}>
              {working && saving === 'save' ? 'Saving…' : 'Save without approving'}
            </button>
            <button type="button" onClick={cancel}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <PostPreview
          platform={a.draft.platform}
          texts={a.draft.parts.map((p) => p.text)}
          media={media}
          lengths
        />
      )}

      <dl class="facts">
        <dt>Reason</dt>
        <dd>{a.reason ?? 'None given'}</dd>
        <dt>Proposed by</dt>
        <dd>
          <ProposedBy approval={a} />
        </dd>
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
          <button
            type="button"
            class="primary"
            disabled={actions.busy}
            onClick={approve}
            data-shortcut="approve"
            aria-keyshortcuts="A"
          >
            {working ? 'Approving…' : 'Approve'}
          </button>
          <button type="button" disabled={actions.busy} onClick={() => open('time')} data-shortcut="time">
            Approve for another time
          </button>
          <button
            type="button"
            disabled={actions.busy}
            onClick={startEdit}
            data-shortcut="edit"
            aria-keyshortcuts="E"
          >
            Edit
          </button>
          <button
            type="button"
            class="danger"
            disabled={actions.busy}
            onClick={() => open('reject')}
            data-shortcut="reject"
            aria-keyshortcuts="R"
          >
            Reject
          </button>
        </div>
      )}
      {pending && mode === 'time' && (
        <ApproveAt approval={a} actions={actions} done={`the post for ${channelName(a)}`} onClose={cancel} />
      )}
      {pending && mode === 'reject' && (
        <form class="reject-form" onSubmit={reject} onKeyDown={cancelOnEscape}>
          <label for={`${titleId}-reason`}>Reason for rejecting</label>
          <textarea
            id={`${titleId}-reason`}
            ref={reasonBox}
            required
            maxLength={1000}
            rows={2}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <SubmitOrCancel
            label={working ? 'Rejecting…' : 'Reject'}
            kind="danger"
            disabled={actions.busy || !reason.trim()}
            onCancel={cancel}
          />
        </form>
      )}
      <Outcome actions={actions} where={a.id} />
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
      a.id,
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
  const box = useRef<HTMLTextAreaElement>(null);
  const label = props.count > 1 ? `Part ${props.index + 1} text` : 'Post text';
  // The box grows with the text, so the whole part is in view while it is edited.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${el.scrollHeight + el.offsetHeight - el.clientHeight}px`;
  }, [props.text]);
  return (
    <div class="part-editor">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        ref={box}
        class="grows"
        rows={3}
        value={props.text}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <Length
        chars={lengthOf(props.text)}
        limit={props.limit}
        label={props.count > 1 ? `Part ${props.index + 1}` : 'Length'}
      />
    </div>
  );
}
