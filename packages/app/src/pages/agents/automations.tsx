import { useId, useState } from 'preact/hooks';
import { type Agent, type AgentId, type Automation, type Brand, client } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { Link } from '../../router.js';
import { Outcome, ProblemNotice } from '../../ui.js';
import { InputFields, type InputValues, initialInputs, inputsFor } from './inputs.js';
import { runPath } from './words.js';

type Trigger = Automation['trigger'];

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const EVENTS: Record<string, string> = {
  'post.published': 'a post is published',
  'post.metrics_settled': "a post's metrics settle",
};
const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;

/** `every Monday at 09:00 (server time)` / `when a post is published`. */
export function triggerWords(t: Trigger): string {
  if (t.type === 'event') return `when ${EVENTS[t.event] ?? t.event}`;
  const day = t.every === 'week' ? `every ${WEEKDAYS[t.weekday ?? 1]}` : 'every day';
  return `${day} at ${hh(t.hour)} (server time)`;
}

/**
 * The brand's automations: create, edit, pause or resume, run now, and today's runs against the
 * daily cap. GET/POST /v1/automations, PATCH /v1/automations/{id}, POST /v1/automations/{id}/run.
 */
export function AutomationsSection({ brand, agents }: { brand: Brand; agents: Agent[] }) {
  const list = useLoad(
    async () => (await client.automations.list({ brand_id: brand.id, limit: 100 })).automations,
    [brand.id],
  );
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const change = async (work: () => Promise<unknown>, done: string, where = '') => {
    return action.run(work, done, where, list.reload);
  };
  return (
    <section aria-labelledby="automations-title" class="automations">
      <div class="page-head">
        <h2 id="automations-title">Automations</h2>
        {!creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New automation
          </button>
        )}
      </div>
      <p class="ops-muted">
        An automation runs an agent for {brand.name} on a schedule or when something happens, at most its
        daily cap of runs a day.
      </p>
      {/* Creating's outcome; each automation's own shows in its card. */}
      <Outcome action={action} where="" />
      {list.problem && <ProblemNotice problem={list.problem} />}
      {creating && (
        <AutomationForm
          agents={agents}
          brand={brand}
          busy={action.busy}
          submitLabel="Create automation"
          onCancel={() => setCreating(false)}
          onSubmit={async (fields) => {
            const ok = await change(
              () => client.automations.create({ brand_id: brand.id, ...fields }),
              `Automation “${fields.name}” created.`,
            );
            if (ok) setCreating(false);
          }}
        />
      )}
      {list.data?.length === 0 && !creating && (
        <p class="ops-muted">No automations yet. Choose “New automation” to run an agent on a schedule.</p>
      )}
      <ul class="automation-list">
        {list.data?.map((a) => (
          <li key={a.id}>
            <AutomationCard
              automation={a}
              agents={agents}
              busy={action.busy}
              change={change}
              action={action}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

interface Fields {
  name: string;
  agent_id: AgentId;
  inputs: Record<string, unknown>;
  trigger: Trigger;
  daily_cap: number;
}

function AutomationCard(props: {
  automation: Automation;
  agents: Agent[];
  busy: boolean;
  change(work: () => Promise<unknown>, done: string, where: string): Promise<boolean>;
  /** The section's action: its outcome shows in the card that asked for it. */
  action: Parameters<typeof Outcome>[0]['action'];
}) {
  const a = props.automation;
  // Which of the card's buttons is running, so only that one says so.
  const [pressed, setPressed] = useState<'run' | 'pause' | null>(null);
  const working = (which: 'run' | 'pause') => props.busy && props.action.where === a.id && pressed === which;
  const { brand } = useBrand();
  const [editing, setEditing] = useState(false);
  const [lastRun, setLastRun] = useState<string | null>(null);
  const titleId = `automation-${a.id}`;
  const agentName = props.agents.find((x) => x.id === a.agent_id)?.name ?? a.agent_id;
  const full = a.runs_today >= a.daily_cap;
  return (
    <article
      class={`ops-card automation${a.enabled ? '' : ' paused'}`}
      aria-labelledby={titleId}
      id={titleId}
    >
      <h3 id={titleId}>
        {a.name} <span class="badge">{a.enabled ? 'On' : 'Paused'}</span>
      </h3>
      <p>
        Runs {agentName} {triggerWords(a.trigger)}.
      </p>
      <p class={`today${full ? ' full' : ''}`}>
        Today: {a.runs_today} of {a.daily_cap === 1 ? '1 run' : `${a.daily_cap} runs`}
        {full ? ' (cap reached)' : ''}
        {a.skipped_today > 0 ? `, ${a.skipped_today} skipped with nothing to do` : ''}
      </p>
      <p class="ops-muted">
        {a.enabled && a.next_run_at ? `Next run ${formatTime(a.next_run_at)}. ` : ''}
        {a.last_fire
          ? `Last fired ${formatTime(a.last_fire.fired_at)}: ${a.last_fire.outcome}${a.last_fire.message ? ` (${a.last_fire.message})` : ''}.`
          : 'Has not fired yet.'}{' '}
        {(lastRun ?? a.last_fire?.run_id) && (
          <Link href={runPath((lastRun ?? a.last_fire?.run_id) as string)}>Open its latest run</Link>
        )}
      </p>
      {editing ? (
        <AutomationForm
          agents={props.agents}
          brand={brand}
          initial={a}
          busy={props.busy}
          submitLabel="Save automation"
          onCancel={() => setEditing(false)}
          onSubmit={async (fields) => {
            const { agent_id: _fixed, ...patch } = fields;
            const ok = await props.change(
              () => client.automations.update(a.id, patch),
              `Automation “${fields.name}” saved.`,
              a.id,
            );
            if (ok) setEditing(false);
          }}
        />
      ) : (
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={props.busy}
            onClick={() => {
              setPressed('run');
              props.change(
                async () => {
                  const r = await client.automations.run(a.id);
                  setLastRun(r.run.id);
                },
                `${a.name} ran now.`,
                a.id,
              );
            }}
          >
            {working('run') ? 'Running…' : 'Run now'}
          </button>
          <button
            type="button"
            disabled={props.busy}
            onClick={() => {
              setPressed('pause');
              props.change(
                () => client.automations.update(a.id, { enabled: !a.enabled }),
                a.enabled ? `${a.name} paused.` : `${a.name} resumed.`,
                a.id,
              );
            }}
          >
            {working('pause') ? (a.enabled ? 'Pausing…' : 'Resuming…') : a.enabled ? 'Pause' : 'Resume'}
          </button>
          <button type="button" disabled={props.busy} onClick={() => setEditing(true)}>
            Edit
          </button>
        </div>
      )}
      <Outcome action={props.action} where={a.id} />
    </article>
  );
}

function AutomationForm(props: {
  agents: Agent[];
  brand: Brand | null;
  initial?: Automation;
  busy: boolean;
  submitLabel: string;
  onCancel(): void;
  onSubmit(fields: Fields): void;
}) {
  const base = useId();
  const init = props.initial;
  const [name, setName] = useState(init?.name ?? '');
  const [agentId, setAgentId] = useState<AgentId>(init?.agent_id ?? props.agents[0]?.id ?? 'weekly_plan');
  const agent = props.agents.find((x) => x.id === agentId) as Agent;
  const [values, setValues] = useState<InputValues>(() => initialInputs(agent, props.brand, init?.inputs));
  const [kind, setKind] = useState<Trigger['type']>(init?.trigger.type ?? 'schedule');
  const sched = init?.trigger.type === 'schedule' ? init.trigger : null;
  const [every, setEvery] = useState<'day' | 'week'>(sched?.every ?? 'week');
  const [hour, setHour] = useState(String(sched?.hour ?? 9));
  const [weekday, setWeekday] = useState(String(sched?.weekday ?? 1));
  const [event, setEvent] = useState(init?.trigger.type === 'event' ? init.trigger.event : 'post.published');
  const [cap, setCap] = useState(String(init?.daily_cap ?? 3));
  const { brands } = useBrand();

  const trigger = (): Trigger =>
    kind === 'event'
      ? { type: 'event', event: event as 'post.published' }
      : every === 'week'
        ? { type: 'schedule', every, hour: Number(hour), weekday: Number(weekday) }
        : { type: 'schedule', every, hour: Number(hour) };
  return (
    <form
      class="automation-form"
      aria-label={props.submitLabel}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit({
          name,
          agent_id: agentId,
          inputs: inputsFor(agent, values),
          trigger: trigger(),
          daily_cap: Number(cap),
        });
      }}
    >
      <div class="ops-field">
        <label for={`${base}-name`}>Name</label>
        <input
          id={`${base}-name`}
          required
          maxLength={120}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </div>
      <div class="ops-field">
        <label for={`${base}-agent`}>Agent</label>
        <select
          id={`${base}-agent`}
          value={agentId}
          disabled={!!init}
          onChange={(e) => {
            const id = (e.target as HTMLSelectElement).value as AgentId;
            setAgentId(id);
            const next = props.agents.find((x) => x.id === id);
            if (next) setValues(initialInputs(next, props.brand));
          }}
        >
          {props.agents.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      </div>
      <InputFields agent={agent} values={values} brands={brands ?? []} onChange={setValues} />
      <div class="ops-field">
        <label for={`${base}-kind`}>When</label>
        <select
          id={`${base}-kind`}
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value as Trigger['type'])}
        >
          <option value="schedule">On a schedule</option>
          <option value="event">When something happens</option>
        </select>
      </div>
      {kind === 'schedule' ? (
        <div class="ops-row">
          <div class="ops-field">
            <label for={`${base}-every`}>Every</label>
            <select
              id={`${base}-every`}
              value={every}
              onChange={(e) => setEvery((e.target as HTMLSelectElement).value as 'day' | 'week')}
            >
              <option value="day">Day</option>
              <option value="week">Week</option>
            </select>
          </div>
          {every === 'week' && (
            <div class="ops-field">
              <label for={`${base}-weekday`}>Day</label>
              <select
                id={`${base}-weekday`}
                value={weekday}
                onChange={(e) => setWeekday((e.target as HTMLSelectElement).value)}
              >
                {WEEKDAYS.map((d, i) => (
                  <option key={d} value={String(i)}>
                    {d}
                  </option>
                ))}
              </select>
            </div>
          )}
          <div class="ops-field">
            <label for={`${base}-hour`}>Hour (server time)</label>
            <select
              id={`${base}-hour`}
              value={hour}
              onChange={(e) => setHour((e.target as HTMLSelectElement).value)}
            >
              {Array.from({ length: 24 }, (_, h) => (
                <option key={h} value={String(h)}>
                  {hh(h)}
                </option>
              ))}
            </select>
          </div>
        </div>
      ) : (
        <div class="ops-field">
          <label for={`${base}-event`}>Event</label>
          <select
            id={`${base}-event`}
            value={event}
            onChange={(e) => setEvent((e.target as HTMLSelectElement).value as 'post.published')}
          >
            {Object.entries(EVENTS).map(([id, words]) => (
              <option key={id} value={id}>
                When {words}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="ops-field">
        <label for={`${base}-cap`}>Daily cap (runs a day)</label>
        <input
          id={`${base}-cap`}
          type="number"
          min={1}
          max={24}
          required
          value={cap}
          onInput={(e) => setCap((e.target as HTMLInputElement).value)}
        />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={props.busy}>
          {props.submitLabel}
        </button>
        <button type="button" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
