import { useState } from 'preact/hooks';
import { type Brand, client, type Post } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime, PLATFORM_NAMES } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { Empty, Notice, PageFrame, ProblemNotice } from '../../ui.js';
import { excerptOf, FilterSelect, formatCount, VerdictBadge, WithBrand } from './shared.js';

const STATUSES = ['published', 'scheduled', 'unconfirmed', 'failed'] as const;
const STATUS_NAMES: Record<Post['status'], string> = {
  published: 'Published',
  scheduled: 'Scheduled',
  publishing: 'Publishing',
  unconfirmed: 'Unconfirmed: check the platform',
  failed: 'Failed',
};
export const statusName = (s: Post['status']) => STATUS_NAMES[s];

/** The channel a post went out on, by its handle when the brand still has it connected. */
export function channelOf(brand: Brand | null, post: Pick<Post, 'channel_id' | 'platform'>): string {
  const ch = brand?.channels.find((c) => c.id === post.channel_id);
  return ch ? `${PLATFORM_NAMES[post.platform]} @${ch.handle}` : PLATFORM_NAMES[post.platform];
}

/** When it went out, or when it is due. */
export const whenOf = (p: Pick<Post, 'published_at' | 'scheduled_for'>) =>
  p.published_at
    ? `Published ${formatTime(p.published_at)}`
    : p.scheduled_for
      ? `Scheduled for ${formatTime(p.scheduled_for)}`
      : 'Not scheduled';

/** The brand's posts, newest first, each with its verdict, filtered by status, platform and channel. */
export function PostsPage() {
  return (
    <PageFrame title="Posts">
      <WithBrand what="Posts">{(brand) => <PostList brand={brand} />}</WithBrand>
    </PageFrame>
  );
}

function PostList({ brand }: { brand: Brand }) {
  const { at, navigate } = useLocation();
  const filter = {
    status: (STATUSES as readonly string[]).includes(at.query.get('status') ?? '')
      ? (at.query.get('status') as Post['status'])
      : undefined,
    channel_id: brand.channels.some((c) => c.id === at.query.get('channel'))
      ? (at.query.get('channel') as string)
      : undefined,
  };
  const [more, setMore] = useState<Post[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const { data, problem } = useLoad(async () => {
    const page = await client.posts.list({ brand_id: brand.id, limit: 50, ...filter });
    setMore([]);
    setNext(page.has_more ? page.next_after : null);
    return page.posts;
  }, [brand.id, filter.status, filter.channel_id]);
  const more_ = useAction();
  const loadMore = () =>
    more_.run(async () => {
      if (!next) return;
      const page = await client.posts.list({ brand_id: brand.id, limit: 50, after: next, ...filter });
      setMore((m) => [...m, ...page.posts]);
      setNext(page.has_more ? page.next_after : null);
    }, 'More posts loaded.');
  /** Filters live in the query string, so a filtered list can be bookmarked and shared. */
  const setFilter = (key: 'status' | 'channel', value: string) => {
    const q = new URLSearchParams(at.query);
    if (value) q.set(key, value);
    else q.delete(key);
    const s = q.toString();
    navigate(s ? `/posts?${s}` : '/posts');
  };
  const posts = data ? [...data, ...more] : null;
  return (
    <>
      <form class="filters" aria-label="Filter posts" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect
          label="Status"
          any="Any status"
          value={filter.status ?? ''}
          options={STATUSES.map((st) => [st, STATUS_NAMES[st]])}
          onChange={(v) => setFilter('status', v)}
        />
        <FilterSelect
          label="Channel"
          any="Every channel"
          value={filter.channel_id ?? ''}
          options={brand.channels.map((c) => [c.id, `${PLATFORM_NAMES[c.platform]} @${c.handle}`])}
          onChange={(v) => setFilter('channel', v)}
        />
      </form>
      {problem && <ProblemNotice problem={problem} />}
      {problem ? null : posts === null ? (
        <p class="loading">Loading posts…</p>
      ) : posts.length === 0 ? (
        <Empty title="No posts here yet">
          <p>
            Posts appear once an approval is approved and published, or when you publish a draft. Approve a
            proposal on <Link href="/approvals">Approvals</Link>
            {filter.status || filter.channel_id ? ', or clear the filters' : ''}.
          </p>
        </Empty>
      ) : (
        <ul class="post-list">
          {posts.map((p) => (
            <li key={p.id} class="post-row">
              <h2>
                <Link href={`/posts/${encodeURIComponent(p.id)}`}>{excerptOf(p.parts[0]?.text ?? p.id)}</Link>
              </h2>
              <p class="post-meta">
                <VerdictBadge verdict={p.verdict} /> <span class="badge">{STATUS_NAMES[p.status]}</span>{' '}
                {channelOf(brand, p)} · {whenOf(p)}
                {p.metrics && ` · ${formatCount(p.metrics.engagements)} engagements`}
              </p>
            </li>
          ))}
        </ul>
      )}
      <Notice text={more_.notice} />
      {more_.problem && <ProblemNotice problem={more_.problem} />}
      {next && (
        <button type="button" onClick={loadMore} disabled={more_.busy}>
          Show more posts
        </button>
      )}
    </>
  );
}
