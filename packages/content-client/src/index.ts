export {
  APIPromise,
  type APIResponse,
  APIUserAbortError,
  // One base class per client, so `instanceof ContentApiError` catches every error this
  // client rejects with (and none of the commerce client's).
  ApiError as ContentApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  type ListPage,
  NotFoundError,
  type Page,
  PagePromise,
  PermissionDeniedError,
  RateLimitError,
  type RequestOptions,
  ResponseTooLargeError,
  TimeoutError,
  UnprocessableEntityError,
} from '@svc/client-core';
export { ContentClient, type ContentClientOptions } from './client.js';
export * from './mcp-config.js';
export type * from './models.js';
export type { AgentRunListParams, AgentRunParams } from './resources/agents.js';
export type { ApiKeyCreateParams, McpCallListParams } from './resources/api-keys.js';
export type {
  ApprovalApproveParams,
  ApprovalBulkAction,
  ApprovalBulkParams,
  ApprovalListParams,
  ApprovalProposeParams,
  ApprovalRejectParams,
  ApprovalUpdateParams,
} from './resources/approvals.js';
export type {
  AutomationCreateParams,
  AutomationListParams,
  AutomationUpdateParams,
} from './resources/automations.js';
export type {
  BestTimesParams,
  BrandCreateParams,
  BrandListParams,
  BrandUpdateParams,
  KnowledgeAddParams,
  MemoryPreviewParams,
  MemorySaveParams,
} from './resources/brands.js';
export type {
  CampaignCreateParams,
  CampaignListParams,
  CampaignUpdateParams,
  CanvasItemUpdateParams,
  CanvasNoteParams,
} from './resources/campaigns.js';
export type { ChannelConnectParams, ChannelListParams } from './resources/channels.js';
export type {
  DraftAttachMediaParams,
  DraftCreateParams,
  DraftGenerateParams,
  DraftListParams,
  DraftRewriteParams,
  DraftUpdateParams,
} from './resources/drafts.js';
export type {
  IdeaCreateParams,
  IdeaGenerateParams,
  IdeaGenerateResponse,
  IdeaListParams,
  IdeaUpdateParams,
} from './resources/ideas.js';
export type {
  ConversationParams,
  DigestGenerateParams,
  OutcomesParams,
  OverviewParams,
  SignalCreateParams,
  SignalListParams,
} from './resources/insights.js';
export type {
  MediaFromUrlParams,
  MediaListParams,
  MediaUpdateParams,
  MediaUploadParams,
  Uploadable,
} from './resources/media.js';
export type { MemoryProposalListParams } from './resources/memory-proposals.js';
export type {
  PostConfirmParams,
  PostCreateParams,
  PostListParams,
  PostScheduleParams,
  PostUpdateParams,
  ReplyListParams,
} from './resources/posts.js';
export type { SandboxAdvanceParams } from './resources/sandbox-clock.js';
export type { components, JsonBody, JsonResponse, operations, PageOf, paths, QueryOf } from './types.js';
export { VERSION } from './version.js';
