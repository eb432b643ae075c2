// The attempts' timeouts, shared: every attempt with the same timeout that starts within one
// short window joins one deadline, one AbortController and one timer. A per-attempt controller
// and timer were most of what a call cost over a bare fetch (docs/benchmarks/history.md, "Eighth pass:
// client retrieve"); shared, a busy client pays for them once per window instead of per call.
//
// The meaning of `timeoutMs` stays "per attempt", within the window: a deadline fires WINDOW_MS
// after its window closes plus the timeout, so an attempt that joined it is ended after between
// timeoutMs and timeoutMs + WINDOW_MS, never sooner.

/** How late a timeout may fire, and how long a deadline takes new attempts. */
export const WINDOW_MS = 10;

/**
 * At most this many attempts share one deadline. Node's fetch adds a listener to the signal it
 * is given and removes it only when its request is collected, and warns past 1,500 listeners
 * on one signal; a flood of calls within one window then gets more deadlines, not a longer list.
 */
const MAX_ATTEMPTS = 256;

// setTimeout fires at once for delays above 2^31-1 ms; clamp instead of surprising.
const MAX_TIMER_MS = 2_147_483_647;

/** What a deadline ends when it fires. */
export interface Timed {
  timeOut(reason: unknown): void;
}

/**
 * One timer and one controller for the attempts that joined within its window. `signal` is
 * what those attempts hand to fetch: aborting it cancels every fetch still in flight (their
 * sockets are freed); fetches that already finished ignore it.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly signal = this.#controller.signal;
  /** The attempts still in flight; each leaves when it settles. */
  readonly #pending = new Set<Timed>();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #closesAt: number;
  #joined = 0;
  #held = true;

  constructor(
    readonly timeoutMs: number,
    now: number,
  ) {
    this.#closesAt = now + WINDOW_MS;
    this.#timer = setTimeout(fire, Math.min(timeoutMs + WINDOW_MS, MAX_TIMER_MS), this);
  }

  /** True while an attempt starting `now` may still join (its timeout would come no sooner). */
  open(now: number): boolean {
    return now < this.#closesAt && this.#joined < MAX_ATTEMPTS;
  }

  join(attempt: Timed): void {
    this.#joined++;
    this.#pending.add(attempt);
    // An idle open deadline lets the process exit (see leave); a new attempt holds it again.
    if (!this.#held) this.#hold(true);
  }

  /**
   * An attempt settled. When it was the last one, the timer has nothing left to end: a closed
   * deadline stops it; the open one (still taking attempts) stops holding the process, so no
   * timer keeps a process alive after its calls have settled.
   */
  leave(attempt: Timed): void {
    this.#pending.delete(attempt);
    if (this.#pending.size > 0) return;
    if (current.get(this.timeoutMs) === this) this.#hold(false);
    else clearTimeout(this.#timer);
  }

  /** Ends the attempts still in flight as timed out, then cancels their fetches. */
  fire(): void {
    if (current.get(this.timeoutMs) === this) current.delete(this.timeoutMs);
    if (this.#pending.size === 0) return;
    const reason = new DOMException('The attempt timed out.', 'TimeoutError');
    for (const attempt of this.#pending) attempt.timeOut(reason);
    this.#pending.clear();
    this.#controller.abort(reason);
  }

  /** Retires a deadline that new attempts no longer join; its timer stops if nothing is in flight. */
  retire(): void {
    if (this.#pending.size === 0) clearTimeout(this.#timer);
  }

  #hold(held: boolean): void {
    this.#held = held;
    // Browsers' timers are numbers with no ref/unref, and keep no process alive anyway.
    const timer = this.#timer as { ref?: () => void; unref?: () => void };
    if (held) timer.ref?.();
    else timer.unref?.();
  }
}

// A module function handed its deadline as setTimeout's argument: no closure per deadline.
function fire(deadline: Deadline): void {
  deadline.fire();
}

/** The deadline attempts join now, one per timeout value; shared by every client in the process. */
const current = new Map<number, Deadline>();

/**
 * The deadline an attempt starting now, with this timeout, joins. `performance.now()` is
 * monotonic: a wall clock set back would keep a window open while its timer ran out, and end
 * late joiners early.
 */
export function deadlineFor(timeoutMs: number): Deadline {
  const now = performance.now();
  let deadline = current.get(timeoutMs);
  if (deadline?.open(now)) return deadline;
  deadline?.retire();
  deadline = new Deadline(timeoutMs, now);
  current.set(timeoutMs, deadline);
  return deadline;
}
