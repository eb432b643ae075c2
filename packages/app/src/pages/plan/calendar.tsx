import { useState } from 'preact/hooks';
import { client } from '../../api.js';
import { useLoad } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { Empty, PageFrame } from '../../ui.js';
import { instantOf, wallClock } from '../../when.js';
import { CreateDialog } from './calendar-create.js';
import {
  addDays,
  type BestSlot,
  bestIn,
  type DayKey,
  dateOf,
  dayName,
  keyOf,
  type Placed,
  place,
  shade,
  weekStart,
} from './calendar-time.js';
import { type Slot, WeekGrid } from './calendar-week.js';
import { all, type Brand, WithBrand } from './common.js';
import './plan.css';

const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

export function CalendarPage() {
  return <WithBrand title="Calendar">{(brand) => <Calendar key={brand.id} brand={brand} />}</WithBrand>;
}

function Calendar({ brand }: { brand: Brand }) {
  const { at, navigate } = useLocation();
  const loaded = useLoad(async () => {
    const [clock, posts, best, channels, drafts] = await Promise.all([
      client.sandboxClock.retrieve(),
      all(client.posts.list({ brand_id: brand.id, limit: 100 })),
      client.brands.bestTimes(brand.id),
      all(client.channels.list({ brand_id: brand.id, limit: 100 })),
      all(client.drafts.list({ brand_id: brand.id, limit: 100 })),
    ]);
    return { clock, posts, best, channels, drafts };
  }, [brand.id]);
  const data = loaded.data;
  const view = at.query.get('view') === 'month' ? 'month' : 'week';
  const [notice, setNotice] = useState('');
  const [creating, setCreating] = useState<string | null>(null);

  if (!data) return <PageFrame title="Calendar" problem={loaded.problem} loading="the calendar" />;

  /** Days and hours are the brand's; best-time slots come in the server's zone and are converted. */
  const tz = brand.time_zone;
  const now = wallClock(data.clock.now, tz);
  const today = now.day;
  const asked = at.query.get('date');
  const date =
    asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) && !Number.isNaN(dateOf(asked).getTime()) ? asked : today;
  const go = (v: string, d: DayKey) => navigate(`/calendar?view=${v}&date=${d}`);
  const handle = new Map(data.channels.map((c) => [c.id, c.handle]));
  const placed = place(data.posts, tz);
  /** The month's narrow days show only when and where. */
  const label = (p: Placed) =>
    `${p.time} ${PLATFORM_NAMES[p.post.platform]} ${handle.get(p.post.channel_id) ?? ''} · ${p.post.status}`;
  const connected = data.channels.filter((c) => c.status === 'connected');
  /** A new post starts at the clicked slot, or at the next whole hour from now. */
  const openCreate = (slot?: Slot) =>
    setCreating(
      (slot
        ? instantOf(slot.day, slot.hour, 0, tz)
        : new Date(Math.ceil(Date.parse(data.clock.now) / 3_600_000) * 3_600_000)
      ).toISOString(),
    );
  const reloadThen = async (text: string) => {
    await loaded.reload();
    setNotice(text);
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

  const shown =
    view === 'week'
      ? Array.from({ length: 7 }, (_, i) => addDays(first, i))
      : Array.from({ length: 42 }, (_, i) => addDays(first, i));
  const best = bestIn(data.best, shown, tz);

  return (
    <PageFrame title="Calendar" problem={loaded.problem} notice={notice}>
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
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={connected.length === 0}
            onClick={() => openCreate()}
          >
            New post
          </button>
        </div>
      </div>
      <h2 class="cal-heading">{heading}</h2>
      <p class="muted">
        Times in <strong>{tz}</strong>, {brand.name}'s time zone (
        <Link href="/settings#brand">change it</Link>
        ). <span class="legend best-2">Shaded</span> hours are the brand's best times to post (
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
        <>
          <p class="muted" id="cal-keys">
            Click a free hour to write a post for it. To move a scheduled post, drag its handle (⠿) to another
            hour, or focus the handle and press Enter, then the arrow keys (a day or an hour), then Enter to
            drop it there or Escape to put it back.
          </p>
          <WeekGrid
            first={first}
            today={today}
            zone={tz}
            placed={placed}
            best={best}
            handles={handle}
            say={setNotice}
            onCreate={openCreate}
            onMoved={async (postId, text) => {
              await reloadThen(text);
              document.getElementById(`move-${postId}`)?.focus();
            }}
          />
        </>
      ) : (
        <Month first={first} month={monthOf} today={today} placed={placed} best={best} label={label} />
      )}
      {creating && (
        <CreateDialog
          brandId={brand.id}
          zone={tz}
          at={creating}
          channels={connected}
          drafts={data.drafts}
          onClose={() => setCreating(null)}
          onCreated={async (text) => {
            setCreating(null);
            await reloadThen(text);
          }}
        />
      )}
    </PageFrame>
  );
}

interface MonthProps {
  first: DayKey;
  month: string;
  today: DayKey;
  placed: Placed[];
  best: Map<string, BestSlot>;
  label: (p: Placed) => string;
}

function Month(props: MonthProps) {
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
              const best = [...props.best.entries()].filter(([k]) => k.startsWith(day)).map(([, b]) => b);
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
                          <Link
                            href={`/posts/${p.post.id}`}
                            class={`cal-post status-${p.post.status} platform-${p.post.platform}`}
                          >
                            {props.label(p)}
                          </Link>
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
