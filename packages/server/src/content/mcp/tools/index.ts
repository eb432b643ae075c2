import type { AnyTool } from '../tool.js';
import { getAgentRunTool, listAgentsTool, runAgentTool } from './agents.js';
import { listApprovalsTool, proposePostTool } from './approvals.js';
import { addKnowledgeTool, getBrandMemoryTool, listBrandsTool, saveToMemoryTool } from './brands.js';
import { addCanvasNoteTool, listCampaignsTool } from './campaigns.js';
import { createIdeaTool, draftIdeaTool, listIdeasTool, suggestIdeasTool } from './ideas.js';
import { getConversationTool, getDigestTool } from './insights.js';
import { attachMediaTool, listMediaTool } from './media.js';
import { listMemoryProposalsTool } from './memory-proposals.js';
import { bestTimesTool, getPostTool, listPostsTool } from './posts.js';

/** The 14 read tools, in the spec's order. */
export const READ_TOOLS: AnyTool[] = [
  listBrandsTool,
  getBrandMemoryTool,
  listPostsTool,
  getPostTool,
  getDigestTool,
  bestTimesTool,
  listCampaignsTool,
  listIdeasTool,
  listApprovalsTool,
  listMemoryProposalsTool,
  getConversationTool,
  listMediaTool,
  listAgentsTool,
  getAgentRunTool,
];

/** The 9 write tools. None publishes, schedules, approves or deletes: that stays with a person. */
export const WRITE_TOOLS: AnyTool[] = [
  createIdeaTool,
  suggestIdeasTool,
  draftIdeaTool,
  proposePostTool,
  attachMediaTool,
  runAgentTool,
  addKnowledgeTool,
  saveToMemoryTool,
  addCanvasNoteTool,
];

/** The contract of the current surface: exactly 23 tools. */
export const TOOLS: AnyTool[] = [...READ_TOOLS, ...WRITE_TOOLS];
