import { type Brand, client, type Digest } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime, PLATFORM_NAMES } from '../../platforms.js';
import { Empty, Notice, PageFrame, ProblemNotice } from '../../ui.js';
import {
  countOf,
  Figures,
  formatChange,
  formatCount,
  formatShare,
  PostLink,
  VERDICT_NAMES,
  VerdictBadge,
  WithBrand,
} from './shared.js';

/** The brand's overview, its latest digest with citations, and what replies talk about. */
export function InsightsPage() {
  return (
    <PageFrame title="Insights">
      <WithBrand what="Insights">{(brand) => <Insights brand={brand} />}</WithBrand>
    </PageFrame>
  );
}

function Insights({ brand }: { brand: Brand }) {
  return (
    <>
      <OverviewSection brand={brand} />
      <DigestSection brand={brand} />
      <ThemesSection brand={brand} />
    </>
  );
}

function OverviewSection({ brand }: { brand: Brand }) {
  const { data: o, problem } = useLoad(() => client.insights.overview({ brand_id: brand.id }), [brand.id]);
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Overview</h2>
      {problem && <ProblemNotice problem={problem} />}
      {!o && !problem && <p class="loading">Loading the overview…</p>}
      {o && (
        <>
          <p>
            The last {o.days} days ({formatTime(o.period_start)} to {formatTime(o.period_end)}), against the{' '}
            {o.days} days before.
          </p>
          <Figures
            items={[
              ['Posts published', formatCount(o.posts_published)],
              ['Impressions', formatCount(o.impressions)],
              [
                'Engagements',
                <>
                  {formatCount(o.engagements)} <small>({formatChange(o.change_vs_previous)})</small>
                </>,
              ],
              ['Engagement rate', formatShare(o.engagement_rate)],
              ['Replies', formatCount(o.replies)],
              ['Scheduled', formatCount(o.scheduled)],
              ['Waiting for approval', formatCount(o.pending_approvals)],
            ]}
          />
          <h3>Verdicts</h3>
          <ul class="verdict-counts">
            {(Object.keys(VERDICT_NAMES) as (keyof typeof VERDICT_NAMES)[]).map((v) => (
              <li key={v}>
                <VerdictBadge verdict={v} /> {formatCount(o.verdicts[v])}
              </li>
            ))}
          </ul>
          {o.by_platform.length > 0 && (
            <>
              <h3>By platform</h3>
              <ul class="by-platform">
                {o.by_platform.map((p) => (
                  <li key={p.platform}>
                    <strong>{PLATFORM_NAMES[p.platform]}</strong>: {countOf(p.posts, 'post')},{' '}
                    {countOf(p.impressions, 'impression')}, {countOf(p.engagements, 'engagement')}
                  </li>
                ))}
              </ul>
            </>
          )}
          {o.top_post && (
            <p>
              Top post: <PostLink id={o.top_post.id}>{o.top_post.excerpt}</PostLink> (
              {formatCount(o.top_post.engagements)} engagements on {PLATFORM_NAMES[o.top_post.platform]})
            </p>
          )}
        </>
      )}
    </section>
  );
}

const DIGEST_LISTS = [
  ['wins', 'Wins'],
  ['misses', 'Misses'],
  ['patterns', 'Patterns'],
  ['recommendations', 'Recommendations'],
] as const;

function DigestSection({ brand }: { brand: Brand }) {
  const { data, problem, reload } = useLoad(async (): Promise<Digest | 'none'> => {
    try {
      return await client.insights.digest.retrieve(brand.id);
    } catch (err) {
      // 404 until the first digest is made: that is the empty state, not a failure.
      if ((err as { status?: number }).status === 404) return 'none';
      throw err;
    }
  }, [brand.id]);
  const make = useAction();
  const generate = async () => {
    await make.run(
      () => client.insights.digest.generate(brand.id, {}),
      'A new digest is ready.',
      '',
      (ok) => ok && reload(),
    );
  };
  const button = (
    <button
      type="button"
      class={data === 'none' ? 'primary' : undefined}
      onClick={generate}
      disabled={make.busy}
    >
      {make.busy ? 'Making a digest…' : 'Make a new digest'}
    </button>
  );
  return (
    <section aria-labelledby="digest-title">
      <div class="page-head">
        <h2 id="digest-title">Digest</h2>
        {data && button}
      </div>
      <Notice text={make.notice} />
      {make.problem && <ProblemNotice problem={make.problem} />}
      {problem && <ProblemNotice problem={problem} />}
      {!data && !problem && <p class="loading">Loading the digest…</p>}
      {data === 'none' && (
        <Empty title="No digest yet">
          <p>
            A digest sums up the last 7 days: wins, misses, patterns and recommendations, each citing the
            posts behind it. Press "Make a new digest", or add an automation that runs the digest agent every
            Monday.
          </p>
        </Empty>
      )}
      {data && data !== 'none' && (
        <>
          <p class="headline">{data.headline}</p>
          <p class="muted">
            {formatTime(data.period_start)} to {formatTime(data.period_end)} ·{' '}
            {countOf(data.stats.posts_published, 'post')} · {countOf(data.stats.engagements, 'engagement')} (
            {formatChange(data.stats.change_vs_previous)}) · {countOf(data.stats.replies, 'reply', 'replies')}
          </p>
          {DIGEST_LISTS.map(([key, title]) => (
            <div key={key} class={`digest-list digest-${key}`}>
              <h3>{title}</h3>
              {data[key].length === 0 ? (
                <p class="muted">None this period.</p>
              ) : (
                <ul>
                  {data[key].map((item, i) => (
                    <li key={i}>
                      {item.text}
                      {(item.post_ids.length > 0 || item.signal_ids.length > 0) && (
                        <span class="citations">
                          {' '}
                          Cites:{' '}
                          {item.post_ids.map((id, n) => (
                            <span key={id}>
                              {n > 0 && ', '}
                              <PostLink id={id} />
                            </span>
                          ))}
                          {item.signal_ids.map((id, n) => (
                            <span key={id}>{(n > 0 || item.post_ids.length > 0) && ', '}a reply signal</span>
                          ))}
                        </span>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
        </>
      )}
    </section>
  );
}

function ThemesSection({ brand }: { brand: Brand }) {
  const { data, problem } = useLoad(() => client.insights.conversation(brand.id), [brand.id]);
  // The API answers largest first; sorting again keeps that promise whatever the order.
  const themes = data ? [...data.themes].sort((a, b) => b.count - a.count) : [];
  return (
    <section aria-labelledby="themes-title">
      <h2 id="themes-title">Reply themes</h2>
      {problem && <ProblemNotice problem={problem} />}
      {!data && !problem && <p class="loading">Loading reply themes…</p>}
      {data && themes.length === 0 && (
        <p>
          No replies in the last {countOf(data.days, 'day')}. Themes appear once people reply to published
          posts.
        </p>
      )}
      {data && themes.length > 0 && (
        <>
          <p class="muted">
            {countOf(data.total_replies, 'reply', 'replies')} over the last {countOf(data.days, 'day')},
            largest theme first.
          </p>
          <ol class="themes">
            {themes.map((t) => (
              <li key={t.id} class="theme">
                <h3>
                  {t.label}{' '}
                  <span class="muted">
                    {countOf(t.count, 'reply', 'replies')} ({formatShare(t.share)})
                  </span>
                </h3>
                {t.top_terms.length > 0 && <p>Top terms: {t.top_terms.join(', ')}</p>}
                <ul class="examples">
                  {t.examples.map((e) => (
                    <li key={e.reply_id}>
                      <q>{e.text}</q> on <PostLink id={e.post_id} />
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
