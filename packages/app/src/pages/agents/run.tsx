import { Fragment } from 'preact';
import { type AgentRun, client } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { Link } from '../../router.js';
import { PageFrame } from '../../ui.js';
import { PostLink } from '../results/shared.js';
import { duration, runPath, STATUS_WORDS, statusBadge } from './words.js';
import '../ops.css';
import './agents.css';

const SOURCE_WORDS = {
  app: 'a person (in the app or through the REST API)',
  api: 'the REST API',
  mcp: 'an MCP client',
  automation: 'an automation',
} as const;

const json = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * An input as a person reads it: a brand by its name, a post by its text, anything else as
 * written. An id the app cannot name (a brand since deleted) says what it was, not the id.
 */
function InputValue({ value }: { value: unknown }) {
  const { brands } = useBrand();
  if (typeof value === 'string' && /^brd_/.test(value))
    return <>{brands?.find((b) => b.id === value)?.name ?? 'a brand that is gone'}</>;
  if (typeof value === 'string' && /^post_/.test(value)) return <PostLink id={value} />;
  return <code>{json(value)}</code>;
}

/** One agent run: inputs, steps with timings, child runs, approvals it queued. GET /v1/agent-runs/{id}. */
export function RunPage({ id }: { id: string }) {
  const run = useLoad(() => client.agentRuns.retrieve(id), [id]);
  const agents = useLoad(async () => (await client.agents.list()).agents, []);
  const r = run.data;
  const agentName = (agentId: string) => agents.data?.find((a) => a.id === agentId)?.name ?? agentId;
  return (
    <PageFrame
      title={r ? `${agentName(r.agent_id)} run` : 'Agent run'}
      problem={run.problem}
      loading={!r && 'the run'}
      actions={<Link href="/agents">All agents and runs</Link>}
    >
      {r && (
        <>
          <dl class="facts run-facts">
            <dt>Status</dt>
            <dd>
              <span class={statusBadge(r.status)}>{STATUS_WORDS[r.status]}</span>
            </dd>
            <dt>Started</dt>
            <dd>{formatTime(r.started_at)}</dd>
            <dt>Finished</dt>
            <dd>
              {r.finished_at
                ? `${formatTime(r.finished_at)} (${duration(Date.parse(r.finished_at) - Date.parse(r.started_at))})`
                : 'Still running'}
            </dd>
            <dt>Started by</dt>
            <dd>
              {SOURCE_WORDS[r.source]}
              {r.key_id && ', with an API key'}
            </dd>
            {r.parent_run_id && (
              <>
                <dt>Part of</dt>
                <dd>
                  <Link href={runPath(r.parent_run_id)}>the parent run</Link>
                </dd>
              </>
            )}
          </dl>
          {r.error && (
            <div class="problem" role="alert">
              <p>
                This run failed: {r.error.message} <code>{r.error.code}</code>
              </p>
            </div>
          )}
          <h2>Inputs</h2>
          {Object.keys(r.inputs).length === 0 ? (
            <p class="ops-muted">None.</p>
          ) : (
            <dl class="facts">
              {Object.entries(r.inputs).map(([k, v]) => (
                <Fragment key={k}>
                  <dt>{k}</dt>
                  <dd>
                    <InputValue value={v} />
                  </dd>
                </Fragment>
              ))}
            </dl>
          )}
          <h2>Steps</h2>
          <Steps steps={r.steps} />
          <h2>Child runs</h2>
          {r.child_runs.length === 0 ? (
            <p class="ops-muted">None.</p>
          ) : (
            <ul class="runs">
              {r.child_runs.map((c) => (
                <li key={c.id}>
                  <Link href={runPath(c.id)}>
                    {agentName(c.agent_id)} run, {formatTime(c.started_at)}
                  </Link>{' '}
                  <span class={statusBadge(c.status)}>{STATUS_WORDS[c.status]}</span>{' '}
                  <span class="ops-muted">
                    {c.steps.length === 1 ? '1 step' : `${c.steps.length} steps`},{' '}
                    {duration(c.steps.reduce((n, s) => n + s.duration_ms, 0))}
                  </span>
                </li>
              ))}
            </ul>
          )}
          <h2>Approvals it queued</h2>
          {r.approvals.length === 0 ? (
            <p class="ops-muted">None.</p>
          ) : (
            <ul class="runs">
              {r.approvals.map((a) => (
                <li key={a.id}>
                  <Link href={`/approvals#approval-${a.id}`}>Approval for {formatTime(a.slot)}</Link>{' '}
                  <span class="badge">{a.status}</span>
                </li>
              ))}
            </ul>
          )}
          {r.output && (
            <details class="output">
              <summary>Output (JSON)</summary>
              <pre>{JSON.stringify(r.output, null, 2)}</pre>
            </details>
          )}
        </>
      )}
    </PageFrame>
  );
}

function Steps({ steps }: { steps: AgentRun['steps'] }) {
  if (steps.length === 0) return <p class="ops-muted">No steps recorded.</p>;
  return (
    <ol class="steps">
      {steps.map((s, i) => (
        <li key={`${s.name}-${i}`} class={`step step-${s.status}`}>
          <div class="step-head">
            <code>{s.name}</code> <span class="badge">{s.status}</span>{' '}
            <span class="ops-muted">
              {duration(s.duration_ms)}, started {formatTime(s.started_at)}
            </span>
          </div>
          {s.detail && <p>{s.detail}</p>}
        </li>
      ))}
    </ol>
  );
}
