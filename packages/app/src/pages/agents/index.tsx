import { useState } from 'preact/hooks';
import { type Agent, type AgentRunSummary, client } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { PageFrame, ProblemNotice } from '../../ui.js';
import { NoBrand } from '../brand/no-brand.js';
import { AutomationsSection } from './automations.js';
import { InputFields, type InputValues, initialInputs, inputsFor } from './inputs.js';
import { runPath, STATUS_WORDS, statusBadge } from './words.js';
import '../ops.css';
import './agents.css';

/**
 * The built-in agents with a "Run" form each, the recent runs, and the brand's automations.
 * GET /v1/agents, POST /v1/agents/{id}/runs, GET /v1/agent-runs.
 */
export function AgentsPage() {
  const { brand, brands } = useBrand();
  const agents = useLoad(async () => (await client.agents.list()).agents, []);
  const runs = useLoad(async () => (await client.agentRuns.list({ limit: 20 })).agent_runs, []);
  return (
    <PageFrame title="Agents" problem={agents.problem} loading={agents.data === null && 'the agents'}>
      {brands !== null && brands.length === 0 && <NoBrand what="The agents' plans, drafts and checks" />}
      <h2>Run an agent</h2>
      <ul class="agents">
        {agents.data?.map((a) => (
          <li key={a.id}>
            <AgentCard agent={a} />
          </li>
        ))}
      </ul>
      <RecentRuns runs={runs.data} problem={runs.problem} agents={agents.data ?? []} />
      {brand && agents.data && <AutomationsSection brand={brand} agents={agents.data} />}
    </PageFrame>
  );
}

function AgentCard({ agent }: { agent: Agent }) {
  const { brand, brands } = useBrand();
  const { navigate } = useLocation();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState<InputValues>(() => initialInputs(agent, brand));
  const titleId = `agent-${agent.id}`;
  const start = async (e: Event) => {
    e.preventDefault();
    let runId = '';
    const ok = await action.run(async () => {
      runId = (await client.agents.run(agent.id, { inputs: inputsFor(agent, values) })).id;
    }, `${agent.name} ran.`);
    if (ok) navigate(runPath(runId));
  };
  return (
    <article class="ops-card agent" aria-labelledby={titleId}>
      <h3 id={titleId}>{agent.name}</h3>
      <p>{agent.description}</p>
      <details>
        <summary>{agent.steps.length === 1 ? 'Its one step' : `Its ${agent.steps.length} steps`}</summary>
        <ol>
          {agent.steps.map((s) => (
            <li key={s.name}>
              <code>{s.name}</code>: {s.description}
            </li>
          ))}
        </ol>
      </details>
      {agent.makes_model_calls && <p class="ops-muted">Calls the model.</p>}
      {!open ? (
        <button
          type="button"
          class="primary"
          aria-label={`Run ${agent.name}`}
          onClick={() => {
            setValues(initialInputs(agent, brand));
            setOpen(true);
          }}
        >
          Run
        </button>
      ) : (
        <form class="run-form" onSubmit={start} aria-label={`Inputs for ${agent.name}`}>
          <InputFields agent={agent} values={values} brands={brands ?? []} onChange={setValues} />
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy}>
              {action.busy ? 'Running…' : `Run ${agent.name}`}
            </button>
            <button type="button" onClick={() => setOpen(false)} disabled={action.busy}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {action.problem && <ProblemNotice problem={action.problem} />}
    </article>
  );
}

function RecentRuns(props: {
  runs: AgentRunSummary[] | null;
  problem: ReturnType<typeof useLoad>['problem'];
  agents: Agent[];
}) {
  const name = (id: string) => props.agents.find((a) => a.id === id)?.name ?? id;
  return (
    <>
      <h2>Recent runs</h2>
      {props.problem && <ProblemNotice problem={props.problem} />}
      {props.runs?.length === 0 && (
        <p class="ops-muted">No runs yet. Run an agent above, or let an automation run one.</p>
      )}
      {props.runs && props.runs.length > 0 && (
        <ul class="runs">
          {props.runs.map((r) => (
            <li key={r.id}>
              <Link href={runPath(r.id)}>
                {name(r.agent_id)}, {formatTime(r.started_at)}
              </Link>{' '}
              <span class={statusBadge(r.status)}>{STATUS_WORDS[r.status]}</span>{' '}
              <span class="ops-muted">
                by {r.automation_id ? 'an automation' : r.source === 'mcp' ? 'an MCP client' : 'a person'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
