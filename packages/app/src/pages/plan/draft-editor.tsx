import { useEffect, useId, useState } from 'preact/hooks';
import { type Approval, client } from '../../api.js';
import { useZoneOf } from '../../brand.js';
import { useLoad } from '../../hooks.js';
import { formatTime, PLATFORM_LIMITS, PLATFORM_NAMES } from '../../platforms.js';
import { PostPreview } from '../../preview.js';
import { Link } from '../../router.js';
import { Outcome, PageFrame, ProblemNotice } from '../../ui.js';
import { fromInput, toInput, zoneName } from '../../when.js';
import { PartEditors, VoiceCheck } from '../approvals.js';
import { type AssetFit, all, type Change, type Draft, nameOf, useChange } from './common.js';
import { Rejected } from './rejections.js';
import { UploadAndAttach } from './upload-attach.js';
import './plan.css';

type VoiceResult = Approval['voice_check'];
type Run = Change;

/** Platforms whose posts may be threads of several parts (docs/content/limits.md). */
const THREADS = new Set(['x', 'threads']);

const ACTIONS: Record<Draft['versions'][number]['action'], string> = {
  create: 'written',
  generate: 'drafted by the model',
  rewrite: 'rewritten',
  edit: 'edited',
  attach_media: 'media attached',
};

/** One draft: its text per part with live length counts, versions, media, voice check and propose. */
export function DraftEditorPage({ id }: { id: string }) {
  const draft = useLoad(() => client.drafts.retrieve(id), [id]);
  const action = useChange(draft.reload);
  const run = action.change;
  const [voice, setVoice] = useState<VoiceResult | null>(null);
  const d = draft.data;
  // Which section's change is running, so its button says so.
  const doing = action.busy ? action.where : '';

  return (
    <PageFrame
      title={d ? `${PLATFORM_NAMES[d.platform]} draft` : 'Draft'}
      problem={draft.problem}
      loading={!d && 'the draft'}
    >
      {d && (
        <>
          <p class="muted">
            <Link href="/drafts">All drafts</Link> · {d.status} · version {d.version}
            {d.idea_id && (
              <>
                {' '}
                · from an idea on the <Link href="/ideas">Ideas</Link> board
              </>
            )}
          </p>
          {d.status !== 'draft' && (
            <p class="stale">
              This draft is {d.status}. Changes make a new version; what was proposed or scheduled keeps the
              version it was given.
            </p>
          )}
          <Rejected draft={d} />
          <TextEditor key={d.version} draft={d} busy={action.busy} doing={doing} run={run} />
          <Outcome action={action} where="text" />
          <AttachMedia draft={d} busy={action.busy} doing={doing} run={run} />
          <Outcome action={action} where="media" />
          <section aria-labelledby="voice-title">
            <h2 id="voice-title">Voice check</h2>
            <p>Banned words, length, hashtags, media and an empty hook, against your Brand Memory.</p>
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                run(
                  async () => {
                    setVoice(await voiceCheck(d.id));
                  },
                  'Ran the voice check on the current version.',
                  'voice',
                )
              }
            >
              {action.busy && action.where === 'voice' ? 'Checking…' : 'Run voice check'}
            </button>
            <Outcome action={action} where="voice" />
            {voice && (
              <div class="voice-result">
                <VoiceCheck check={voice} />
              </div>
            )}
          </section>
          <Propose draft={d} busy={action.busy} doing={doing} run={run} />
          <Outcome action={action} where="propose" />
          <Versions draft={d} busy={action.busy} doing={doing} run={run} />
          <Outcome action={action} where="versions" />
        </>
      )}
    </PageFrame>
  );
}

/** The `voice_check` agent's result for the draft's current version (POST /v1/agents/voice_check/runs). */
async function voiceCheck(draftId: string): Promise<VoiceResult> {
  let run = await client.agents.run('voice_check', { inputs: { draftId } });
  while (run.status === 'running') {
    await new Promise((r) => setTimeout(r, 300));
    run = await client.agentRuns.retrieve(run.id);
  }
  const out = run.output as Partial<VoiceResult> | null;
  if (run.status === 'failed' || !out || !Array.isArray(out.checks))
    throw new Error(run.error?.message ?? 'The voice check gave no result.');
  return { passed: Boolean(out.passed), checks: out.checks };
}

function TextEditor(props: { draft: Draft; busy: boolean; doing: string; run: Run }) {
  const d = props.draft;
  const [texts, setTexts] = useState(() => d.parts.map((p) => p.text));
  const [note, setNote] = useState('');
  const id = useId();
  const limit = PLATFORM_LIMITS[d.platform];
  const save = (e: Event) => {
    e.preventDefault();
    props.run(
      () =>
        client.drafts.update(d.id, {
          parts: texts.map((text) => ({ text })),
          ...(note.trim() ? { note: note.trim() } : {}),
        }),
      'Saved a new version.',
      'text',
    );
  };
  const changed = texts.join('\u0000') !== d.parts.map((p) => p.text).join('\u0000');
  return (
    <form class="draft-editor" onSubmit={save} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Text</h2>
      <p class="muted">{`${PLATFORM_NAMES[d.platform]} allows ${limit} characters per ${THREADS.has(d.platform) ? 'part' : 'post'}.`}</p>
      <PartEditors texts={texts} limit={limit} onChange={setTexts} />
      <PostPreview platform={d.platform} texts={texts} media={d.parts[0]?.media ?? []} />
      {THREADS.has(d.platform) && (
        <div class="actions">
          <button type="button" onClick={() => setTexts((prev) => [...prev, ''])}>
            Add part
          </button>
          {texts.length > 1 && (
            <button type="button" onClick={() => setTexts((prev) => prev.slice(0, -1))}>
              Remove last part
            </button>
          )}
        </div>
      )}
      <label for={`${id}-note`}>What changed (optional)</label>
      <input id={`${id}-note`} maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      <div class="actions">
        <button
          type="submit"
          class="primary"
          disabled={props.busy || !changed || texts.some((t) => !t.trim())}
        >
          {props.doing === 'text' ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

function AttachMedia(props: { draft: Draft; busy: boolean; doing: string; run: Run }) {
  const d = props.draft;
  const library = useLoad(() => all(client.media.list(d.brand_id, { limit: 100 })), [d.brand_id]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [fit, setFit] = useState<AssetFit | null>(null);
  const attached = d.parts[0]?.media ?? [];
  const name = useId();

  useEffect(() => {
    setFit(null);
    if (chosen) client.media.fit(chosen).then(setFit, () => setFit(null));
  }, [chosen]);
  const forPlatform = fit?.platforms.find((p) => p.platform === d.platform);

  return (
    <section aria-labelledby={`${name}-h`}>
      <h2 id={`${name}-h`}>Media</h2>
      {attached.length === 0 ? (
        <p>No media attached.</p>
      ) : (
        <ul class="attached-names" aria-label="Attached media">
          {attached.map((m) => (
            <li key={m.asset_id}>
              {nameOf(
                library.data?.find((a) => a.id === m.asset_id),
                m.kind,
              )}
              , {m.variant} crop: shown in the preview above as {PLATFORM_NAMES[d.platform]} shows it.
            </li>
          ))}
        </ul>
      )}
      <UploadAndAttach
        draft={d}
        busy={props.busy}
        doing={props.doing}
        run={props.run}
        uploaded={library.reload}
      />
      {library.problem && <ProblemNotice problem={library.problem} />}

      {library.data && library.data.length > 0 && (
        <form
          class="attach"
          onSubmit={(e) => {
            e.preventDefault();
            if (chosen)
              props.run(
                () =>
                  client.drafts.attachMedia(d.id, {
                    asset_id: chosen,
                    ...(forPlatform ? { variant: forPlatform.preferred_variant } : {}),
                  }),
                `Attached the media with its ${PLATFORM_NAMES[d.platform]} crop.`,
                'media',
              );
          }}
        >
          <fieldset>
            <legend>Choose from the library</legend>
            <ul class="pick-media">
              {library.data.map((a) => (
                <li key={a.id}>
                  <label>
                    <input
                      type="radio"
                      name={name}
                      checked={chosen === a.id}
                      onChange={() => setChosen(a.id)}
                    />
                    {(a.variants.square ?? a.variants.original)?.url && a.kind === 'image' && (
                      <img
                        class="pick-thumb"
                        src={(a.variants.square ?? a.variants.original)?.url}
                        alt=""
                        loading="lazy"
                      />
                    )}
                    <span>{nameOf(a, a.kind)}</span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          {chosen && !fit && <p class="loading">Loading the crop…</p>}
          {forPlatform && (
            <figure class="crop-preview">
              {fit?.kind === 'image' && (
                <img
                  class="preview-img"
                  src={forPlatform.preferred_url}
                  alt={`${PLATFORM_NAMES[d.platform]} crop preview (${forPlatform.preferred_variant})`}
                />
              )}
              <figcaption>
                {PLATFORM_NAMES[d.platform]} crop: {forPlatform.preferred_variant}. {forPlatform.why}
                {!forPlatform.ok && ` ${forPlatform.warnings.join(' ')}`}
              </figcaption>
            </figure>
          )}
          <button type="submit" disabled={props.busy || !chosen}>
            {props.doing === 'media' ? 'Attaching…' : 'Attach'}
          </button>
        </form>
      )}
    </section>
  );
}

function Propose(props: { draft: Draft; busy: boolean; doing: string; run: Run }) {
  const [reason, setReason] = useState('');
  const [proposed, setProposed] = useState<{ slot: string; channel: string } | null>(null);
  const [when, setWhen] = useState('');
  // Null until the brands are loaded: the default is filled in only once its zone is known.
  const zone = useZoneOf(props.draft.brand_id);
  const id = useId();
  // The default is what the server would choose: the next free best-time slot on the channel.
  useEffect(() => {
    if (!zone) return;
    client.brands.bestTimes(props.draft.brand_id, { platform: props.draft.platform }).then(
      (b) => {
        const free = b.platforms.find((p) => p.platform === props.draft.platform)?.next_free;
        if (free) setWhen((v) => v || toInput(free.at, zone));
      },
      () => undefined, // left empty, the server picks the slot
    );
  }, [props.draft.id, proposed, zone]);
  const propose = async (e: Event) => {
    e.preventDefault();
    const at = fromInput(when, zone ?? zoneName());
    await props.run(
      async () => {
        const a = await client.approvals.propose({
          draft_id: props.draft.id,
          ...(at ? { proposed_for: at } : {}),
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        });
        setWhen('');
        setProposed({ slot: a.slot, channel: `${PLATFORM_NAMES[a.channel.platform]} ${a.channel.handle}` });
        setReason('');
      },
      'Proposed the post: it is waiting for approval.',
      'propose',
    );
  };
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Propose</h2>
      <p>
        Sends the current version to the approval queue for the time below: the next free best-time slot on
        the channel unless you choose another. Nothing is published until a person approves it.
      </p>
      <form class="propose" onSubmit={propose}>
        <label for={`${id}-t`}>Goes out at ({zone ?? zoneName()} time)</label>
        <input
          id={`${id}-t`}
          type="datetime-local"
          value={when}
          onInput={(e) => setWhen(e.currentTarget.value)}
        />
        <label for={`${id}-r`}>Reason (shown to the approver)</label>
        <textarea
          id={`${id}-r`}
          rows={2}
          maxLength={1000}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={props.busy}>
          {props.doing === 'propose' ? 'Proposing…' : 'Propose'}
        </button>
      </form>
      {proposed && (
        <p>
          Waiting for approval on {proposed.channel} for {formatTime(proposed.slot)}.{' '}
          <Link href="/approvals">Open Approvals</Link>
        </p>
      )}
    </section>
  );
}

function Versions(props: { draft: Draft; busy: boolean; doing: string; run: Run }) {
  const d = props.draft;
  const restore = (v: Draft['versions'][number]) =>
    props.run(
      () =>
        client.drafts.update(d.id, {
          parts: v.parts.map((p) => ({ text: p.text })),
          note: `Restored version ${v.version}`,
        }),
      `Restored the text of version ${v.version} as a new version.`,
      'versions',
    );
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <p class="muted">Restoring a version brings back its text as a new version; attached media stays.</p>
      <ul class="versions" aria-label="Versions, newest first">
        {[...d.versions].reverse().map((v) => (
          <li key={v.version}>
            <details>
              <summary>
                Version {v.version}: {ACTIONS[v.action]}
                {v.note ? ` (${v.note})` : ''}, {formatTime(v.created_at)}
                {v.version === d.version ? ' — current' : ''}
              </summary>
              {v.parts.map((p, i) => (
                <p key={i} class="text">
                  {p.text}
                  {p.media.length > 0 && (
                    <span class="muted">
                      {' '}
                      [{p.media.map((m) => `${m.kind}, ${m.variant} crop`).join('; ')}]
                    </span>
                  )}
                </p>
              ))}
              {v.version !== d.version && (
                <button type="button" disabled={props.busy} onClick={() => restore(v)}>
                  Restore version {v.version}
                </button>
              )}
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
