import type { AgentRun } from '../../api.js';

/** A run's page: `/agents/runs/run_…`. */
export const runPath = (id: string) => `/agents/runs/${encodeURIComponent(id)}`;

export const STATUS_WORDS: Record<AgentRun['status'], string> = {
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** `1234` → `1.2 s`; `85` → `85 ms`. */
export const duration = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

/** The badge class of a run's status (the approval badges' colours: green done, red failed). */
export const statusBadge = (status: AgentRun['status']) =>
  `badge${status === 'succeeded' ? ' badge-approved' : status === 'failed' ? ' badge-rejected' : ''}`;
