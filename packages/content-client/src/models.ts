// Named aliases of the server's OpenAPI schemas, for annotating your own code:
// `const post: Post = await client.posts.retrieve(id)`. Statuses and platforms are
// string-literal unions, straight from the server's enums.
import type { components } from './generated/content-api.js';

type Schemas = components['schemas'];

export type Agent = Schemas['Agent'];
export type AgentId = Schemas['AgentId'];
export type AgentRun = Schemas['AgentRun'];
export type AgentRunStatus = Schemas['AgentRunStatus'];
export type AgentRunStep = Schemas['AgentRunStep'];
export type AgentRunSummary = Schemas['AgentRunSummary'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyScope = Schemas['ApiKeyScope'];
export type Approval = Schemas['Approval'];
export type ApprovalCounts = Schemas['ApprovalCounts'];
export type ApprovalStatus = Schemas['ApprovalStatus'];
export type Audience = Schemas['Audience'];
export type Automation = Schemas['Automation'];
export type AutomationRunResult = Schemas['AutomationRunResult'];
export type AutomationTrigger = Schemas['AutomationTrigger'];
/** What a request sends as `trigger`: the same shape the API returns. */
export type AutomationTriggerInput = Schemas['AutomationTrigger'];
export type BestTimes = Schemas['BestTimes'];
export type Brand = Schemas['Brand'];
export type BrandMemory = Schemas['BrandMemory'];
export type BrandMemoryInput = Schemas['BrandMemoryInput'];
export type BrandSummary = Schemas['BrandSummary'];
export type CallerSource = Schemas['CallerSource'];
export type Campaign = Schemas['Campaign'];
export type Canvas = Schemas['Canvas'];
export type CanvasItem = Schemas['CanvasItem'];
export type Channel = Schemas['Channel'];
export type ChannelConnectResult = Schemas['ChannelConnectResult'];
export type ChannelSummary = Schemas['ChannelSummary'];
export type Conversation = Schemas['Conversation'];
export type Deleted = Schemas['Deleted'];
export type Digest = Schemas['Digest'];
export type DigestItem = Schemas['DigestItem'];
export type Draft = Schemas['Draft'];
export type DraftDetail = Schemas['DraftDetail'];
export type DraftMedia = Schemas['DraftMedia'];
export type DraftPart = Schemas['DraftPart'];
export type DraftStatus = Schemas['DraftStatus'];
export type DraftVersion = Schemas['DraftVersion'];
export type EventName = Schemas['EventName'];
export type ExamplePost = Schemas['ExamplePost'];
export type Idea = Schemas['Idea'];
export type IdeaStatus = Schemas['IdeaStatus'];
export type InsightsOverview = Schemas['InsightsOverview'];
export type KnowledgeNote = Schemas['KnowledgeNote'];
export type McpCall = Schemas['McpCall'];
export type MediaAsset = Schemas['MediaAsset'];
export type MediaFit = Schemas['MediaFit'];
export type MediaFocalPoint = Schemas['MediaFocalPoint'];
export type MediaPlatformFit = Schemas['MediaPlatformFit'];
export type MediaVariant = Schemas['MediaVariant'];
export type MediaVariantName = Schemas['MediaVariantName'];
export type MemoryChange = Schemas['MemoryChange'];
export type MemoryEvidence = Schemas['MemoryEvidence'];
export type MemoryProposal = Schemas['MemoryProposal'];
export type MemoryProposalStatus = Schemas['MemoryProposalStatus'];
export type MemoryRule = Schemas['MemoryRule'];
export type MemorySaveInput = Schemas['MemorySaveInput'];
export type MemorySaveResult = Schemas['MemorySaveResult'];
export type MemorySourceKind = Schemas['MemorySourceKind'];
export type Mode = Schemas['Mode'];
export type Platform = Schemas['Platform'];
export type Post = Schemas['Post'];
export type PostDetail = Schemas['PostDetail'];
export type PostMetrics = Schemas['PostMetrics'];
export type PostOutcome = Schemas['PostOutcome'];
export type PostStatus = Schemas['PostStatus'];
export type Product = Schemas['Product'];
export type Reply = Schemas['Reply'];
export type ReplyTheme = Schemas['ReplyTheme'];
export type SandboxAdvanceResult = Schemas['SandboxAdvanceResult'];
export type SandboxClock = Schemas['SandboxClock'];
export type Signal = Schemas['Signal'];
export type SignalKind = Schemas['SignalKind'];
export type Verdict = Schemas['Verdict'];
export type VoiceCheck = Schemas['VoiceCheck'];

/** The error body every failed REST call returns. */
export type ErrorBody = Schemas['Error'];
