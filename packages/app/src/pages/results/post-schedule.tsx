import { useId, useRef, useState } from 'preact/hooks';
import { client, type PostDetail } from '../../api.js';
import { useZoneOf } from '../../brand.js';
import { useAction, useFocusAfterRender } from '../../hooks.js';
import { formatTime, PLATFORM_LIMITS } from '../../platforms.js';
import { useLocation } from '../../router.js';
import { Notice, ProblemNotice } from '../../ui.js';
import { fromInput, toInput } from '../../when.js';

/**
 * What a person can still decide about a post that has not gone out: when (reschedule), whether
 * (unschedule, delete, publish now) and what it says (edit). Each control shows its outcome
 * beside it; a refused change keeps what was typed. Publishing now leaves nothing to decide, so
 * the section then keeps only the outcome, where the button was, rather than vanish with it.
 * PATCH /v1/posts/{id}, POST /v1/posts/{id}/publish, DELETE /v1/posts/{id}.
 */
export function PostSchedule({ post, onChanged }: { post: PostDetail; onChanged: () => Promise<void> }) {
  const zone = useZoneOf(post.brand_id);
  const [published, setPublished] = useState('');
  const open = post.status === 'scheduled' || post.status === 'failed';
  if (!open && !published) return null;
  const scheduled = post.status === 'scheduled';
  return (
    <section aria-labelledby="schedule-title" class="post-schedule">
      <h2 id="schedule-title">{post.status === 'failed' ? 'This post failed' : 'Schedule'}</h2>
      {post.status === 'scheduled' &&
        (zone ? (
          <Reschedule post={post} zone={zone} onChanged={onChanged} />
        ) : (
          <p class="loading">Loading the brand's time zone…</p>
        ))}
      {(scheduled || published) && (
        <PublishNow post={post} onChanged={onChanged} said={published} say={setPublished} />
      )}
      {open && <Remove post={post} />}
      {post.status === 'scheduled' && <EditText post={post} onChanged={onChanged} />}
    </section>
  );
}

function Reschedule({
  post,
  zone,
  onChanged,
}: {
  post: PostDetail;
  zone: string;
  onChanged: () => Promise<void>;
}) {
  const [value, setValue] = useState(post.scheduled_for ? toInput(post.scheduled_for, zone) : '');
  const act = useAction();
  const id = useId();
  const submit = async (e: Event) => {
    e.preventDefault();
    const at = fromInput(value, zone);
    if (!at) return act.setProblem({ message: 'Choose a date and a time.', requestId: null });
    await act.run(
      async () => {
        await client.posts.update(post.id, { scheduled_for: at });
        await onChanged();
      },
      `Rescheduled: it goes out ${formatTime(at)}.`,
    );
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Reschedule">
      <label for={id}>Goes out at ({zone} time)</label>
      <div class="row">
        <input
          id={id}
          type="datetime-local"
          value={value}
          required
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit" disabled={act.busy} aria-busy={act.busy}>
          {act.busy ? 'Rescheduling…' : 'Reschedule'}
        </button>
      </div>
      <Notice text={act.notice} />
      {act.problem && <ProblemNotice problem={act.problem} />}
    </form>
  );
}

/**
 * Once published the post has nothing left to schedule and the button goes, but its outcome stays
 * in its place: the section keeps it (`said`), since the reload after publishing changes the post.
 */
function PublishNow(props: {
  post: PostDetail;
  onChanged: () => Promise<void>;
  said: string;
  say: (text: string) => void;
}) {
  const act = useAction();
  const go = async () => {
    let status = '';
    const ok = await act.run(async () => {
      status = (await client.posts.publishNow(props.post.id)).status;
    }, '');
    if (!ok) return;
    props.say(
      status === 'published'
        ? 'Published now.'
        : `Not published yet: the post is ${status}. Its status below says why.`,
    );
    await props.onChanged();
  };
  return (
    <div class="inline-form">
      {props.post.status === 'scheduled' && (
        <div class="row">
          <button type="button" class="primary" disabled={act.busy} aria-busy={act.busy} onClick={go}>
            {act.busy ? 'Publishing…' : 'Publish now'}
          </button>
        </div>
      )}
      <Notice text={props.said} />
      {act.problem && <ProblemNotice problem={act.problem} />}
    </div>
  );
}

/**
 * Unschedule (a post made from a draft: the draft stays, ready to propose again) or Delete (a
 * post written straight to the API, or a failed one). Both ask first: the post's place in the
 * schedule is not kept.
 */
function Remove({ post }: { post: PostDetail }) {
  const { navigate } = useLocation();
  const act = useAction();
  const [asking, setAsking] = useState(false);
  const keepsDraft = post.draft_id !== null && post.status === 'scheduled';
  const verb = keepsDraft ? 'Unschedule' : 'Delete';
  const yes = useRef<HTMLButtonElement>(null);
  const focusAfterRender = useFocusAfterRender();
  const go = async () => {
    // This page goes on success: the page the person lands on says what was done.
    const ok = await act.run(() => client.posts.delete(post.id), '');
    if (!ok) return;
    if (keepsDraft)
      navigate(`/drafts/${encodeURIComponent(post.draft_id as string)}`, {
        said: 'Post unscheduled. Its draft is below, to edit and propose again.',
      });
    else navigate('/posts', { said: 'Post deleted.' });
  };
  return (
    <div class="inline-form">
      {asking ? (
        <>
          <p>
            {keepsDraft
              ? 'Take this post out of the schedule? Its draft stays in Drafts, to edit and propose again.'
              : 'Delete this post? This cannot be undone.'}
          </p>
          <div class="row">
            <button
              ref={yes}
              type="button"
              class="danger"
              disabled={act.busy}
              aria-busy={act.busy}
              onClick={go}
            >
              Yes, {verb.toLowerCase()}
            </button>
            <button type="button" disabled={act.busy} onClick={() => setAsking(false)}>
              Keep it
            </button>
          </div>
        </>
      ) : (
        <div class="row">
          <button
            type="button"
            class="danger"
            onClick={() => {
              setAsking(true);
              focusAfterRender(() => yes.current);
            }}
          >
            {verb}
          </button>
        </div>
      )}
      {act.problem && <ProblemNotice problem={act.problem} />}
    </div>
  );
}

function EditText({ post, onChanged }: { post: PostDetail; onChanged: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [parts, setParts] = useState(post.parts.map((p) => p.text));
  const act = useAction();
  const base = useId();
  const limit = PLATFORM_LIMITS[post.platform];
  const editButton = useRef<HTMLButtonElement>(null);
  const focusAfterRender = useFocusAfterRender();
  const close = () => {
    setOpen(false);
    focusAfterRender(() => editButton.current);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await act.run(async () => {
      await client.posts.update(post.id, { parts: parts.map((text) => ({ text })) });
      await onChanged();
    }, 'Text saved.');
    if (ok) close();
  };
  if (!open)
    return (
      <div class="inline-form">
        <div class="row">
          <button
            ref={editButton}
            type="button"
            onClick={() => {
              setParts(post.parts.map((p) => p.text));
              act.setProblem(null);
              setOpen(true);
            }}
          >
            Edit text
          </button>
        </div>
        <Notice text={act.notice} />
      </div>
    );
  return (
    <form
      class="stack-form"
      aria-label="Edit text"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !act.busy) close();
      }}
    >
      {parts.map((text, i) => (
        <div key={i} class="part-editor">
          <label for={`${base}-${i}`}>{parts.length > 1 ? `Part ${i + 1}` : 'Text'}</label>
          <textarea
            id={`${base}-${i}`}
            value={text}
            rows={Math.min(12, Math.max(3, Math.ceil(text.length / 60)))}
            // biome-ignore lint/a11y/noAutofocus: the person just asked to edit this text.
            autoFocus={i === 0}
            onInput={(e) => setParts(parts.map((t, j) => (j === i ? e.currentTarget.value : t)))}
          />
          <span class={text.length > limit ? 'length over' : 'length'}>
            {text.length} / {limit}
          </span>
        </div>
      ))}
      <div class="actions">
        <button type="submit" class="primary" disabled={act.busy} aria-busy={act.busy}>
          {act.busy ? 'Saving…' : 'Save text'}
        </button>
        <button type="button" disabled={act.busy} onClick={close}>
          Cancel
        </button>
      </div>
      {act.problem && <ProblemNotice problem={act.problem} />}
    </form>
  );
}
