import { useRef, useState } from 'preact/hooks';
import { client, type Problem, problemOf } from '../../api.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { Link } from '../../router.js';
import { ProblemNotice } from '../../ui.js';
import { instantOf } from '../../when.js';
import {
  addDays,
  type BestSlot,
  type DayKey,
  dayName,
  firstWords,
  hh,
  type Placed,
  shade,
  slotKey,
} from './calendar-time.js';

export interface Slot {
  day: DayKey;
  hour: number;
}

interface WeekProps {
  first: DayKey;
  today: DayKey;
  zone: string;
  placed: Placed[];
  best: Map<string, BestSlot>;
  handles: Map<string, string>;
  /** After a move: reload the posts, then say what happened. */
  onMoved: (postId: string, text: string) => Promise<void>;
  /** Read out to screen readers (the page's status region). */
  say: (text: string) => void;
  onCreate: (slot: Slot) => void;
}

/** Hours shown: the working day, widened to any post or best-time slot of the week. */
function hoursOf(placed: Placed[], best: Map<string, BestSlot>): number[] {
  const used = [...placed.map((p) => p.hour), ...[...best.keys()].map((k) => Number(k.slice(11, 13)))];
  const from = Math.min(7, ...used);
  const to = Math.max(21, ...used);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const slotName = (s: Slot) => `${dayName.format(new Date(`${s.day}T00:00:00Z`))} at ${hh(s.hour)}`;

/**
 * The week as a grid: a column per day, a row per hour, best-time slots shaded per platform.
 * A scheduled post moves by dragging its handle (⠿) to another hour, or by keyboard: focus the
 * handle, Enter or Space picks it up, the arrow keys move it a day or an hour, Enter or Space
 * drops it there and Escape puts it back. A move is `PATCH /v1/posts/{id}` with the new
 * `scheduled_for`; a refusal (the hour is taken on the channel: 409) is shown at the post, which
 * stays where it was.
 */
export function WeekGrid(props: WeekProps) {
  const days = Array.from({ length: 7 }, (_, i) => addDays(props.first, i));
  const hours = hoursOf(
    props.placed.filter((p) => days.includes(p.day)),
    props.best,
  );
  const [target, setTarget] = useState<(Slot & { postId: string }) | null>(null);
  const [refused, setRefused] = useState<{ postId: string; problem: Problem } | null>(null);
  const [moving, setMoving] = useState<string | null>(null);

  const move = async (p: Placed, to: Slot) => {
    setTarget(null);
    if (to.day === p.day && to.hour === p.hour) return props.say('Put back where it was.');
    const at = instantOf(to.day, to.hour, p.minute, props.zone).toISOString();
    setMoving(p.post.id);
    setRefused(null);
    try {
      await client.posts.update(p.post.id, { scheduled_for: at });
      await props.onMoved(p.post.id, `Moved the ${PLATFORM_NAMES[p.post.platform]} post to ${slotName(to)}.`);
    } catch (err) {
      setRefused({ postId: p.post.id, problem: problemOf(err) });
      props.say(`Not moved: ${problemOf(err).message}`);
    } finally {
      setMoving(null);
    }
  };

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the grid scrolls sideways on a phone, so its frame must be reachable by keyboard (axe scrollable-region-focusable).
    <section class="week-scroll" aria-label="Week grid" tabIndex={0}>
      <table class="week-grid">
        <caption class="visually-hidden">
          Posts by day and hour, in {props.zone}; shaded hours are best times to post
        </caption>
        <thead>
          <tr>
            <th scope="col" class="corner">
              <span class="visually-hidden">Hour</span>
            </th>
            {days.map((day) => (
              <th key={day} scope="col" class={day === props.today ? 'today' : undefined}>
                {dayName.format(new Date(`${day}T00:00:00Z`))}
                {day === props.today && <span class="badge"> today</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {hours.map((hour) => (
            <tr key={hour}>
              <th scope="row" class="at">
                {hh(hour)}
              </th>
              {days.map((day) => {
                const best = props.best.get(slotKey(day, hour));
                const here = props.placed.filter((p) => p.day === day && p.hour === hour);
                const isTarget = target?.day === day && target.hour === hour;
                const classes = ['slot', best ? shade(best.score) : '', isTarget ? 'drop-target' : ''];
                return (
                  <td key={day} class={classes.filter(Boolean).join(' ')} data-day={day} data-hour={hour}>
                    {best && (
                      <span class="best-chips">
                        <span class="visually-hidden">Best time for </span>
                        {best.platforms.map((b) => (
                          <span key={b.platform} class={`best-chip platform-${b.platform}`}>
                            {b.name}
                          </span>
                        ))}
                      </span>
                    )}
                    {here.map((p) => (
                      <Entry
                        key={p.post.id}
                        p={p}
                        handle={props.handles.get(p.post.channel_id) ?? ''}
                        busy={moving === p.post.id}
                        problem={refused?.postId === p.post.id ? refused.problem : null}
                        days={days}
                        hours={hours}
                        onTarget={(s) => setTarget(s ? { ...s, postId: p.post.id } : null)}
                        onDrop={(s) => move(p, s)}
                        say={props.say}
                      />
                    ))}
                    {here.length === 0 && (
                      <button
                        type="button"
                        class="new-here"
                        tabIndex={-1}
                        aria-label={`New post on ${slotName({ day, hour })}`}
                        onClick={() => props.onCreate({ day, hour })}
                      >
                        +
                      </button>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Entry(props: {
  p: Placed;
  handle: string;
  busy: boolean;
  problem: Problem | null;
  days: DayKey[];
  hours: number[];
  onTarget: (slot: Slot | null) => void;
  onDrop: (slot: Slot) => void;
  say: (text: string) => void;
}) {
  const { p } = props;
  const platform = PLATFORM_NAMES[p.post.platform];
  const words = firstWords(p.post.parts[0]?.text ?? '');
  const movable = p.post.status === 'scheduled';
  /** Where a keyboard move has got to, while the post is picked up. */
  const held = useRef<Slot | null>(null);
  const [picked, setPicked] = useState(false);
  const drag = useRef<{ x: number; y: number; over: Slot | null } | null>(null);

  const step = (s: Slot, key: string): Slot | null => {
    const d = props.days.indexOf(s.day);
    const h = props.hours.indexOf(s.hour);
    const next =
      key === 'ArrowLeft'
        ? { d: d - 1, h }
        : key === 'ArrowRight'
          ? { d: d + 1, h }
          : key === 'ArrowUp'
            ? { d, h: h - 1 }
            : key === 'ArrowDown'
              ? { d, h: h + 1 }
              : null;
    if (!next) return null;
    const day = props.days[next.d];
    const hour = props.hours[next.h];
    return day === undefined || hour === undefined ? s : { day, hour };
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (!movable || props.busy) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (!picked) {
        held.current = { day: p.day, hour: p.hour };
        setPicked(true);
        props.onTarget(held.current);
        props.say(
          `Picked up the ${platform} post at ${slotName(held.current)}. Arrow keys move it a day or an hour; Enter drops it, Escape puts it back.`,
        );
      } else if (held.current) {
        setPicked(false);
        props.onDrop(held.current);
      }
      return;
    }
    if (!picked) return;
    if (e.key === 'Escape' || e.key === 'Tab') {
      if (e.key === 'Escape') e.preventDefault();
      setPicked(false);
      props.onTarget(null);
      props.say('Move cancelled; the post stays where it was.');
      return;
    }
    const next = held.current && step(held.current, e.key);
    if (!next) return;
    e.preventDefault();
    held.current = next;
    props.onTarget(next);
    props.say(slotName(next));
  };

  const slotAt = (x: number, y: number): Slot | null => {
    const cell = document.elementFromPoint(x, y)?.closest<HTMLElement>('td[data-day]');
    return cell ? { day: cell.dataset.day as string, hour: Number(cell.dataset.hour) } : null;
  };

  return (
    <div class={`cal-entry status-${p.post.status} platform-${p.post.platform}${picked ? ' picked' : ''}`}>
      <div class="entry-row">
        {movable && (
          <button
            type="button"
            id={`move-${p.post.id}`}
            class="move-handle"
            aria-label={`Move ${platform} post at ${p.time}: ${words}`}
            aria-pressed={picked}
            aria-busy={props.busy}
            onKeyDown={onKeyDown}
            onBlur={() => {
              if (picked) {
                setPicked(false);
                props.onTarget(null);
              }
            }}
            onPointerDown={(e) => {
              if (props.busy || e.button !== 0) return;
              e.currentTarget.setPointerCapture(e.pointerId);
              drag.current = { x: e.clientX, y: e.clientY, over: null };
            }}
            onPointerMove={(e) => {
              const d = drag.current;
              if (!d || Math.hypot(e.clientX - d.x, e.clientY - d.y) < 4) return;
              d.over = slotAt(e.clientX, e.clientY);
              props.onTarget(d.over);
            }}
            onPointerUp={(e) => {
              const d = drag.current;
              drag.current = null;
              const to = d?.over && slotAt(e.clientX, e.clientY);
              if (to) props.onDrop(to);
              else props.onTarget(null);
            }}
            onPointerCancel={() => {
              drag.current = null;
              props.onTarget(null);
            }}
          >
            ⠿
          </button>
        )}
        <Link href={`/posts/${p.post.id}`} class="cal-post">
          <span class="entry-head">
            {p.time} {platform}
            {props.handle && <span class="muted"> {props.handle}</span>}
            {p.post.status !== 'scheduled' && <span class="entry-status"> · {p.post.status}</span>}
          </span>
          <span class="entry-words">{words}</span>
        </Link>
      </div>
      {props.busy && <p class="muted">Moving…</p>}
      {props.problem && <ProblemNotice problem={props.problem} />}
    </div>
  );
}
