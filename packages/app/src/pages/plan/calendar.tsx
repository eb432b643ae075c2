import { client } from '../../api.js';
import { useLoad } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { Empty, PageFrame } from '../../ui.js';
import { all, type BestTimes, type Brand, type Post, WithBrand } from './common.js';
import './plan.css';

/**
 * Days are `YYYY-MM-DD` keys in the brand's timezone (the one best-time slots are given in),
 * so a post, a slot and "today" fall on the same day whatever the browser's timezone is.
 * Date arithmetic happens on the keys as UTC dates, free of daylight-saving jumps.
 */
type DayKey = string;

const keyOf = (d: Date): DayKey => d.toISOString().slice(0, 10);
const dateOf = (k: DayKey) => new Date(`${k}T00:00:00Z`);
const addDays = (k: DayKey, n: number) => keyOf(new Date(dateOf(k).getTime() + n * 86_400_000));
const weekdayOf = (k: DayKey) => dateOf(k).getUTCDay();
/** Weeks start on Monday. */
const weekStart = (k: DayKey) => addDays(k, -((weekdayOf(k) + 6) % 7));

function zoned(tz: string) {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return (iso: string) => {
    const p = Object.fromEntries(parts.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
    return { day: `${p.year}-${p.month}-${p.day}`, hour: Number(p.hour), time: `${p.hour}:${p.minute}` };
  };
}

const dayName = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});
const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;

export function CalendarPage() {
  return <WithBrand title="Calendar">{(brand) => <Calendar key={brand.id} brand={brand} />}</WithBrand>;
}

interface Placed {
  post: Post;
  day: DayKey;
  hour: number;
  time: string;
}

function Calendar({ brand }: { brand: Brand }) {
  const { at, navigate } = useLocation();
  const loaded = useLoad(async () => {
    const [clock, posts, best, channels] = await Promise.all([
      client.sandboxClock.retrieve(),
      all(client.posts.list({ brand_id: brand.id, limit: 100 })),
      client.brands.bestTimes(brand.id),
      all(client.channels.list({ brand_id: brand.id, limit: 100 })),
    ]);
    return { clock, posts, best, channels };
  }, [brand.id]);
  const data = loaded.data;
  const view = at.query.get('view') === 'month' ? 'month' : 'week';

  if (!data) return <PageFrame title="Calendar" problem={loaded.problem} loading="the calendar" />;

  const tz = data.best.timezone;
  const inTz = zoned(tz);
  const today = inTz(data.clock.now).day;
  const asked = at.query.get('date');
  const date =
    asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) && !Number.isNaN(dateOf(asked).getTime()) ? asked : today;
  const go = (v: string, d: DayKey) => navigate(`/calendar?view=${v}&date=${d}`);
  const handle = new Map(data.channels.map((c) => [c.id, c.handle]));
  const placed: Placed[] = data.posts.flatMap((post) => {
    const when = post.published_at ?? post.scheduled_for;
    return when ? [{ post, ...inTz(when) }] : [];
  });
  placed.sort((a, b) => a.day.localeCompare(b.day) || a.time.localeCompare(b.time));
  /** The week shows the post's first words; the month's narrow days only when and where. */
  const label = (p: Placed, short = false) => {
    const head = `${p.time} ${PLATFORM_NAMES[p.post.platform]} ${handle.get(p.post.channel_id) ?? ''} · ${p.post.status}`;
    return short ? head : `${head}: ${p.post.parts[0]?.text.slice(0, 60) ?? ''}`;
  };

  const first = view === 'week' ? weekStart(date) : weekStart(`${date.slice(0, 8)}01`);
  const monthOf = date.slice(0, 7);
  const step = (n: number) => {
    if (view === 'week') return go(view, addDays(date, 7 * n));
    const d = dateOf(`${monthOf}-01`);
    d.setUTCMonth(d.getUTCMonth() + n);
    go(view, keyOf(d));
  };
  const heading =
    view === 'week' ? `Week of ${dayName.format(dateOf(first))}` : monthName.format(dateOf(`${monthOf}-01`));

  return (
    <PageFrame title="Calendar" problem={loaded.problem}>
      <div class="cal-bar">
        <div class="actions">
          <button type="button" aria-pressed={view === 'week'} onClick={() => go('week', date)}>
            Week
          </button>
          <button type="button" aria-pressed={view === 'month'} onClick={() => go('month', date)}>
            Month
          </button>
        </div>
        <div class="actions">
          <button type="button" onClick={() => step(-1)}>
            Previous {view}
          </button>
          <button type="button" onClick={() => go(view, today)}>
            Today
          </button>
          <button type="button" onClick={() => step(1)}>
            Next {view}
          </button>
        </div>
      </div>
      <h2 class="cal-heading">{heading}</h2>
      <p class="muted">
        Times in {tz}. <span class="legend best-2">Shaded</span> hours are the brand's best times to post (
        {data.best.platforms
          .map(
            (p) =>
              `${PLATFORM_NAMES[p.platform]}: ${p.source === 'history' ? 'from its history' : 'defaults'}`,
          )
          .join('; ')}
        ).
      </p>
      {placed.length === 0 && (
        <Empty title="Nothing scheduled yet">
          <p>
            Approve a proposal on the <Link href="/approvals">Approvals</Link> page, or draft and propose an
            idea from the <Link href="/ideas">Ideas</Link> board: scheduled and published posts appear here.
          </p>
        </Empty>
      )}
      {view === 'week' ? (
        <Week first={first} today={today} placed={placed} best={data.best} label={label} />
      ) : (
        <Month first={first} month={monthOf} today={today} placed={placed} best={data.best} label={label} />
      )}
    </PageFrame>
  );
}

/** The best-time slots of one weekday: hour → platforms, with the best score among them. */
function bestOn(best: BestTimes, weekday: number): Map<number, { platforms: string[]; score: number }> {
  const hours = new Map<number, { platforms: string[]; score: number }>();
  for (const p of best.platforms)
    for (const s of p.slots) {
      if (s.weekday !== weekday) continue;
      const h = hours.get(s.hour) ?? { platforms: [], score: 0 };
      h.platforms.push(PLATFORM_NAMES[p.platform]);
      h.score = Math.max(h.score, s.score);
      hours.set(s.hour, h);
    }
  return hours;
}

/** Shading in three steps of score. */
const shade = (score: number) => `best-${score >= 0.75 ? 3 : score >= 0.4 ? 2 : 1}`;

interface ViewProps {
  first: DayKey;
  today: DayKey;
  placed: Placed[];
  best: BestTimes;
  label: (p: Placed, short?: boolean) => string;
}

function PostLink({ p, label, short }: { p: Placed; label: ViewProps['label']; short?: boolean }) {
  return (
    <Link href={`/posts/${p.post.id}`} class={`cal-post status-${p.post.status} platform-${p.post.platform}`}>
      {label(p, short)}
    </Link>
  );
}

function Week(props: ViewProps) {
  const days = Array.from({ length: 7 }, (_, i) => addDays(props.first, i));
  return (
    <ol class="week" aria-label="Days of the week">
      {days.map((day) => {
        const best = bestOn(props.best, weekdayOf(day));
        const posts = props.placed.filter((p) => p.day === day);
        const hours = [...new Set([...best.keys(), ...posts.map((p) => p.hour)])].sort((a, b) => a - b);
        return (
          <li key={day} class={day === props.today ? 'day today' : 'day'}>
            <h3>
              {dayName.format(dateOf(day))}
              {day === props.today && <span class="badge"> today</span>}
            </h3>
            {hours.length === 0 ? (
              <p class="muted">Nothing planned.</p>
            ) : (
              <ul class="hours">
                {hours.map((h) => {
                  const b = best.get(h);
                  return (
                    <li key={h} class={b ? `hour ${shade(b.score)}` : 'hour'}>
                      <span class="at">{hh(h)}</span>
                      {b && <span class="best-label">Best time for {b.platforms.join(', ')}</span>}
                      {posts
                        .filter((p) => p.hour === h)
                        .map((p) => (
                          <PostLink key={p.post.id} p={p} label={props.label} />
                        ))}
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function Month(props: ViewProps & { month: string }) {
  const weeks: DayKey[][] = [];
  for (let start = props.first; start.slice(0, 7) <= props.month; start = addDays(start, 7)) {
    weeks.push(Array.from({ length: 7 }, (_, i) => addDays(start, i)));
  }
  return (
    <table class="month">
      <caption class="visually-hidden">Posts by day; shaded days have best-time slots</caption>
      <thead>
        <tr>
          {weeks[0]?.map((d) => (
            <th key={d} scope="col">
              {new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' }).format(dateOf(d))}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {weeks.map((week) => (
          <tr key={week[0]}>
            {week.map((day) => {
              const best = [...bestOn(props.best, weekdayOf(day)).values()];
              const top = Math.max(0, ...best.map((b) => b.score));
              const classes = [
                'mday',
                day.slice(0, 7) === props.month ? '' : 'other',
                day === props.today ? 'today' : '',
                best.length ? shade(top) : '',
              ];
              return (
                <td key={day} class={classes.filter(Boolean).join(' ')}>
                  <span class="dnum">
                    {dayName.format(dateOf(day))}
                    {day === props.today && <span class="badge"> today</span>}
                  </span>
                  {best.length > 0 && <span class="visually-hidden">, {best.length} best-time slots</span>}
                  <ul>
                    {props.placed
                      .filter((p) => p.day === day)
                      .map((p) => (
                        <li key={p.post.id}>
                          <PostLink p={p} label={props.label} short />
                        </li>
                      ))}
                  </ul>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
