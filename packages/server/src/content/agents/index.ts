import type { AgentId } from '../domain.js';
import { digestAgent } from './digest.js';
import { repurposeWinnerAgent } from './repurpose-winner.js';
import type { AgentDef } from './types.js';
import { voiceCheckAgent } from './voice-check.js';
import { voiceRefreshAgent } from './voice-refresh.js';
import { weeklyPlanAgent } from './weekly-plan.js';

export type { AgentDef, RunScope } from './types.js';

export const AGENTS: Record<AgentId, AgentDef> = {
  weekly_plan: weeklyPlanAgent,
  repurpose_winner: repurposeWinnerAgent,
  voice_check: voiceCheckAgent,
  digest: digestAgent,
  voice_refresh: voiceRefreshAgent,
};
