import { useEffect, useId, useState } from 'preact/hooks';
import { client, type Mode, type SandboxAdvance } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { Link } from '../../router.js';
import { Notice, ProblemNotice } from '../../ui.js';
import { runPath } from '../agents/words.js';
import { PostLink } from '../results/shared.js';

const MODEL_WORDS: Record<Mode['model'], string> = {
  simulated: 'simulated: agents write with a built-in simulated model, no model server needed',
  real: 'real: agents call the configured model server',
};

/** Sandbox or live, simulated or real model, from GET /v1/mode. */
export function ModeSection({ mode }: { mode: Mode }) {
  return (
    <section aria-labelledby="mode-title" id="mode">
      <h2 id="mode-title">Mode</h2>
      <dl class="facts">
        <dt>Mode</dt>
        <dd>
          <strong>{mode.mode}</strong>:{' '}
          {mode.mode === 'sandbox'
            ? 'posts publish to sandbox channels only, nothing reaches a real platform, and the clock can be moved forward'
            : 'posts publish to the real platforms on real time'}
        </dd>
        <dt>Model</dt>
        <dd>
          {MODEL_WORDS[mode.model]}
          {!mode.model_ready && ' (not ready: no model server is configured, so model calls fail)'}
        </dd>
        <dt>Publishing</dt>
        <dd>
          {mode.publishing === 'simulated'
            ? 'simulated'
            : 'unavailable: no publishing adapter is configured, so publishing fails with an error'}
        </dd>
      </dl>
      <p class="ops-muted">
        The server's start settings choose these (<code>SERVICE_MODE</code>, <code>SERVICE_MODEL</code>); the
        header shows them on every page.
      </p>
    </section>
  );
}

const UNITS = ['minutes', 'hours', 'days'] as const;

/** `8 days`, `5 hours`, `30 minutes`: how far the sandbox runs ahead. */
function ahead(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const [n, unit] =
    minutes >= 2880
      ? [Math.round(minutes / 1440), 'day']
      : minutes >= 120
        ? [Math.round(minutes / 60), 'hour']
        : [minutes, 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
type Unit = (typeof UNITS)[number];

/**
 * The sandbox clock: read it, move it forward, and see what happened (posts published, metrics
 * snapshots, automations fired). GET /v1/sandbox/clock, POST /v1/sandbox/clock/advance.
 */
export function ClockSection({ mode }: { mode: Mode }) {
  const clock = useLoad(() => client.sandboxClock.retrieve(), []);
  const action = useAction();
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState<Unit>('days');
  const [result, setResult] = useState<SandboxAdvance | null>(null);
  const base = useId();
  if (!mode.sandbox_clock) {
    return (
      <section aria-labelledby="clock-title" id="clock">
        <h2 id="clock-title">Clock</h2>
        <p>
          This server runs in {mode.mode} mode on real time, so there is no sandbox clock to move. Posts go
          out at their slots as the time comes.
        </p>
      </section>
    );
  }
  const advance = async (e: Event) => {
    e.preventDefault();
    await action.run(
      async () => {
        setResult(await client.sandboxClock.advance({ [unit]: Number(amount) }));
      },
      `The sandbox clock moved forward ${amount} ${unit}.`,
      '',
      clock.reload,
    );
  };
  return (
    <section aria-labelledby="clock-title" id="clock">
      <h2 id="clock-title">Sandbox clock</h2>
      <p class="ops-muted">
        The sandbox runs on its own clock. Move it forward to see scheduled posts publish, their metrics grow
        and automations fire, without waiting. It never moves back.
      </p>
      {clock.problem && <ProblemNotice problem={clock.problem} />}
      {clock.data && (
        <p>
          Sandbox time now: <strong>{formatTime(clock.data.now)}</strong>
          {clock.data.offset_ms > 0 && (
            <span class="ops-muted"> ({ahead(clock.data.offset_ms)} ahead of real time)</span>
          )}
        </p>
      )}
      <form class="ops-card clock-form" onSubmit={advance} aria-label="Advance the sandbox clock">
        <div class="ops-row">
          <div class="ops-field">
            <label for={`${base}-amount`}>Amount</label>
            <input
              id={`${base}-amount`}
              type="text"
              inputMode="numeric"
              pattern="[0-9]+"
              required
              value={amount}
              onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
            />
          </div>
          <div class="ops-field">
            <label for={`${base}-unit`}>Unit</label>
            <select
              id={`${base}-unit`}
              value={unit}
              onChange={(e) => setUnit((e.target as HTMLSelectElement).value as Unit)}
            >
              {UNITS.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
          </div>
        </div>
        <button type="submit" class="primary" disabled={action.busy}>
          Advance the clock
        </button>
      </form>
      <Notice text={action.notice} />
      {action.problem && <ProblemNotice problem={action.problem} />}
      {result && <WhatHappened result={result} />}
    </section>
  );
}

/** Posts named by their text, each a link to its page. */
function PostLinks({ ids }: { ids: string[] }) {
  return (
    <>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <PostLink id={id} />
        </span>
      ))}
    </>
  );
}

/** An automation by its name (the clock's answer cites it by id). */
function AutomationName({ id }: { id: string }) {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    client.automations.retrieve(id).then(
      (a) => setName(`“${a.name}”`),
      () => setName('(since deleted)'),
    );
  }, [id]);
  return <>{name ?? ''}</>;
}

function WhatHappened({ result: r }: { result: SandboxAdvance }) {
  const nothing =
    r.published.length + r.failed.length + r.settled.length + r.automations.length + r.snapshots === 0;
  return (
    <section class="ops-card what-happened" aria-labelledby="happened-title">
      <h3 id="happened-title">What happened</h3>
      {nothing ? (
        <p>Nothing was due in that time: no post was scheduled and no automation fired.</p>
      ) : (
        <ul>
          <li>
            {r.published.length} {r.published.length === 1 ? 'post' : 'posts'} published
            {r.published.length > 0 && ': '}
            <PostLinks ids={r.published} />
          </li>
          {r.failed.length > 0 && (
            <li>
              {r.failed.length} failed to publish: <PostLinks ids={r.failed} />
            </li>
          )}
          <li>
            {r.snapshots} metrics {r.snapshots === 1 ? 'snapshot' : 'snapshots'} taken
          </li>
          {r.settled.length > 0 && (
            <li>
              {r.settled.length === 1 ? "1 post's metrics" : `${r.settled.length} posts' metrics`} settled
            </li>
          )}
          {r.automations.map((a, i) => (
            <li key={`${a.automation_id}-${i}`}>
              Automation <AutomationName id={a.automation_id} /> fired: {a.outcome}
              {a.run_id && (
                <>
                  {' '}
                  (<Link href={runPath(a.run_id)}>open the run</Link>)
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
