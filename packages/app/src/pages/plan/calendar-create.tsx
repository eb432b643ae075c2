import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { client } from '../../api.js';
import { useAction } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { ProblemNotice } from '../../ui.js';
import { fromInput, toInput } from '../../when.js';
import { firstWords } from './calendar-time.js';
import { type Channel, channelLabel, type DraftSummary } from './common.js';

/**
 * A new post for a slot (clicked in the week, or New post): the time, the channel, then a draft
 * of the brand or new text, and either Schedule (`POST /v1/posts`: it goes out then, no approval)
 * or Propose (`POST /v1/approvals`: a person approves it first; new text becomes a draft first,
 * `POST /v1/drafts`). A refusal is shown next to the buttons and the form keeps what was typed.
 */
export function CreateDialog(props: {
  brandId: string;
  zone: string;
  at: string;
  channels: Channel[];
  drafts: DraftSummary[];
  onClose: () => void;
  onCreated: (text: string) => Promise<void>;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [when, setWhen] = useState(toInput(props.at, props.zone));
  const [channelId, setChannelId] = useState(props.channels[0]?.id ?? '');
  const channel = props.channels.find((c) => c.id === channelId);
  const drafts = props.drafts.filter((d) => d.platform === channel?.platform && d.status === 'draft');
  const [source, setSource] = useState<'draft' | 'text'>('text');
  const [draftId, setDraftId] = useState('');
  const [text, setText] = useState('');
  const act = useAction();
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const chosenDraft = drafts.find((d) => d.id === draftId) ?? drafts[0];

  const submit = async (how: 'schedule' | 'propose') => {
    const at = fromInput(when, props.zone);
    if (!at) return act.setProblem({ message: 'Choose a date and a time.', requestId: null });
    if (!channel)
      return act.setProblem({ message: 'Connect a channel first (Settings → Channels).', requestId: null });
    if (source === 'draft' && !chosenDraft)
      return act.setProblem({
        message: `No ${PLATFORM_NAMES[channel.platform]} draft to use: write the text instead.`,
        requestId: null,
      });
    if (source === 'text' && !text.trim())
      return act.setProblem({ message: 'Write the text first.', requestId: null });
    let done = '';
    const ok = await act.run(async () => {
      if (how === 'schedule') {
        await client.posts.schedule({
          channel_id: channel.id,
          scheduled_for: at,
          ...(source === 'draft' && chosenDraft ? { draft_id: chosenDraft.id } : { text }),
        });
        done = `Scheduled a ${PLATFORM_NAMES[channel.platform]} post.`;
      } else {
        const draft =
          source === 'draft' && chosenDraft
            ? chosenDraft.id
            : (await client.drafts.create({ brand_id: props.brandId, platform: channel.platform, text })).id;
        await client.approvals.propose({ draft_id: draft, channel_id: channel.id, proposed_for: at });
        done = `Proposed a ${PLATFORM_NAMES[channel.platform]} post: it waits on the Approvals page.`;
      }
    }, '');
    if (ok) await props.onCreated(done);
  };

  return (
    <dialog
      ref={ref}
      class="cal-create"
      aria-labelledby={`${id}-title`}
      onClose={props.onClose}
      onCancel={(e) => {
        if (act.busy) e.preventDefault();
      }}
    >
      <form
        class="stack-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit('schedule');
        }}
      >
        <h2 id={`${id}-title`}>New post</h2>
        <label for={`${id}-when`}>Goes out at ({props.zone} time)</label>
        <input
          id={`${id}-when`}
          type="datetime-local"
          required
          value={when}
          onInput={(e) => setWhen(e.currentTarget.value)}
        />
        <label for={`${id}-channel`}>Channel</label>
        <select id={`${id}-channel`} value={channelId} onChange={(e) => setChannelId(e.currentTarget.value)}>
          {props.channels.map((c) => (
            <option key={c.id} value={c.id}>
              {channelLabel(c)}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>What it says</legend>
          <label class="check">
            <input
              type="radio"
              name={`${id}-src`}
              checked={source === 'text'}
              onChange={() => setSource('text')}
            />{' '}
            Write new text
          </label>
          <label class="check">
            <input
              type="radio"
              name={`${id}-src`}
              checked={source === 'draft'}
              disabled={drafts.length === 0}
              onChange={() => setSource('draft')}
            />{' '}
            Use a draft
            {drafts.length === 0 && channel ? ` (no ${PLATFORM_NAMES[channel.platform]} drafts)` : ''}
          </label>
        </fieldset>
        {source === 'text' ? (
          <>
            <label for={`${id}-text`}>Post text</label>
            <textarea
              id={`${id}-text`}
              rows={4}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </>
        ) : (
          <>
            <label for={`${id}-draft`}>Draft</label>
            <select
              id={`${id}-draft`}
              value={chosenDraft?.id ?? ''}
              onChange={(e) => setDraftId(e.currentTarget.value)}
            >
              {drafts.map((d) => (
                <option key={d.id} value={d.id}>
                  {firstWords(d.parts[0]?.text ?? '', 70)}
                </option>
              ))}
            </select>
          </>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy} aria-busy={act.busy}>
            {act.busy ? 'Working…' : 'Schedule'}
          </button>
          <button type="button" disabled={act.busy} onClick={() => submit('propose')}>
            Propose for approval
          </button>
          <button type="button" disabled={act.busy} onClick={() => ref.current?.close()}>
            Cancel
          </button>
        </div>
        {act.problem && <ProblemNotice problem={act.problem} />}
      </form>
    </dialog>
  );
}
