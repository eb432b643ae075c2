import { client, type PostDetail, type Reply } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { Link } from '../../router.js';
import { Notice, PageFrame, ProblemNotice } from '../../ui.js';
import { GrowthChart, growthRows } from './growth-chart.js';
import { PostSchedule } from './post-schedule.js';
import { channelOf, statusName, whenOf } from './posts.js';
import { excerptOf, Figures, formatCount, OutLink, VerdictBadge } from './shared.js';

const THEME_NAMES: Record<Reply['theme'], string> = {
  question: 'Question',
  objection: 'Objection',
  praise: 'Praise',
  request: 'Request',
};

/** One post: its text, verdict, growth curve against the brand's baseline, metrics and replies. */
export function PostPage({ id }: { id: string }) {
  const { data: post, problem, reload } = useLoad(() => client.posts.retrieve(id), [id]);
  return (
    <PageFrame
      title={post ? `Post: ${excerptOf(post.parts[0]?.text ?? post.id, 60)}` : 'Post'}
      problem={problem}
      loading={!post && 'the post'}
    >
      {post?.status === 'unconfirmed' && <Unconfirmed post={post} onDone={reload} />}
      {post && <PostSchedule post={post} onChanged={reload} />}
      {post && <PostBody post={post} />}
      <p>
        <Link href="/posts">Back to all posts</Link>
      </p>
    </PageFrame>
  );
}

function verdictWords(post: PostDetail): string {
  const o = post.outcome;
  if (o.verdict === 'too_early') return 'No metrics snapshot yet: the verdict comes with the first one.';
  if (o.verdict === 'not_enough_data')
    return `Fewer than 3 of the brand's other posts on this platform have reached ${o.age_h ?? 0} hours, so there is no median to compare with yet.`;
  const ratio = o.ratio === null ? '' : `${o.ratio.toFixed(2)}× `;
  return `${ratio}the brand's median at ${o.age_h} hours (${formatCount(o.engagements ?? 0)} engagements against ${formatCount(Math.round(o.baseline_engagements ?? 0))}, the median of ${o.compared_with} posts)${o.settled ? '; settled' : '; still growing, the verdict can change until 72 hours'}.`;
}

/**
 * The platform got the post but its answer never came: it may be live. The service never sends
 * it again on its own; the person looks at the account and says what they found
 * (POST /v1/posts/{id}/confirm).
 */
function Unconfirmed({ post, onDone }: { post: PostDetail; onDone: () => Promise<void> }) {
  const { busy, notice, problem, run } = useAction();
  const say = (published: boolean) =>
    run(
      async () => {
        await client.posts.confirm(post.id, { published });
        await onDone();
      },
      published ? 'Marked as published.' : 'Put back in the schedule: it goes out on the next pass.',
    );
  return (
    <section class="unconfirmed" aria-labelledby="unconfirmed-title">
      <h2 id="unconfirmed-title">Did this post go out?</h2>
      <p>
        {post.notice ??
          'The platform received this post but its answer never came, so it may be live. It will not be sent again on its own.'}
      </p>
      <p>Look at the account, then say what you found.</p>
      <p class="actions">
        <button type="button" disabled={busy} onClick={() => say(true)}>
          It is published
        </button>
        <button type="button" disabled={busy} onClick={() => say(false)}>
          It is not there: send it
        </button>
      </p>
      <Notice text={notice} />
      {problem && <ProblemNotice problem={problem} />}
    </section>
  );
}

function PostBody({ post }: { post: PostDetail }) {
  const { brand } = useBrand();
  const rows = growthRows(post);
  const m = post.metrics;
  return (
    <>
      <dl class="facts">
        <dt>Verdict</dt>
        <dd>
          <VerdictBadge verdict={post.verdict} /> {verdictWords(post)}
        </dd>
        <dt>Status</dt>
        <dd>
          {statusName(post.status)}
          {post.failure && `: ${post.failure}`}
        </dd>
        <dt>Channel</dt>
        <dd>{channelOf(brand, post)}</dd>
        <dt>When</dt>
        <dd>{whenOf(post)}</dd>
        <dt>Permalink</dt>
        <dd>
          {post.permalink ? (
            <>
              <OutLink url={post.permalink}>Open the post on {channelOf(brand, post)}</OutLink>
              {post.sandbox && ' (sandbox: published on this machine only, the link leads nowhere)'}
            </>
          ) : (
            'None yet'
          )}
        </dd>
      </dl>

      <h2>Text</h2>
      <ol class="parts">
        {post.parts.map((part, i) => (
          <li key={i} class="part">
            <p class="text">{part.text}</p>
          </li>
        ))}
      </ol>

      <h2>Growth against the brand's baseline</h2>
      {rows.length === 0 ? (
        <p>No snapshots yet: the first is taken an hour after publishing.</p>
      ) : (
        <>
          <GrowthChart post={post} />
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the table scrolls sideways on a phone, so its frame must be reachable by keyboard (axe scrollable-region-focusable). */}
          <section class="table-scroll" aria-label="Snapshots" tabIndex={0}>
            <table class="growth-table">
              <caption>Snapshots: engagements of this post and the brand's baseline by age</caption>
              <thead>
                <tr>
                  <th scope="col">Hours after publishing</th>
                  <th scope="col">Engagements</th>
                  <th scope="col">Brand baseline</th>
                  <th scope="col">Impressions</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.age}>
                    <th scope="row">{r.age}</th>
                    <td>{r.snapshot ? formatCount(r.snapshot.engagements) : '–'}</td>
                    <td>{r.baseline === null ? '–' : formatCount(Math.round(r.baseline))}</td>
                    <td>{r.snapshot ? formatCount(r.snapshot.impressions) : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}

      <h2>Metrics</h2>
      {m ? (
        <>
          <p>
            Latest snapshot, {m.age_h} hours after publishing ({formatTime(m.taken_at)}).
          </p>
          <Figures
            items={[
              ['Impressions', formatCount(m.impressions)],
              ['Engagements', formatCount(m.engagements)],
              ['Likes', formatCount(m.likes)],
              ['Comments', formatCount(m.comments)],
              ['Shares', formatCount(m.shares)],
              ['Clicks', formatCount(m.clicks)],
            ]}
          />
        </>
      ) : (
        <p>No metrics yet.</p>
      )}

      <h2>Replies</h2>
      <Replies postId={post.id} />
    </>
  );
}

function Replies({ postId }: { postId: string }) {
  const { data, problem } = useLoad(async () => await client.posts.replies(postId, { limit: 100 }), [postId]);
  if (problem) return <ProblemNotice problem={problem} />;
  if (!data) return <p class="loading">Loading replies…</p>;
  if (data.replies.length === 0) return <p>No replies yet.</p>;
  return (
    <ul class="replies">
      {data.replies.map((r) => (
        <li key={r.id}>
          <p class="reply-head">
            <strong>{r.author}</strong> <span class={`badge theme-${r.theme}`}>{THEME_NAMES[r.theme]}</span>{' '}
            <span class="muted">{formatTime(r.created_at)}</span>
          </p>
          <p class="text">{r.text}</p>
        </li>
      ))}
      {data.has_more && <li>Showing the first 100 replies.</li>}
    </ul>
  );
}
