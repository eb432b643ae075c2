import type { ApprovalWithChannel } from '../db/stores/approvals-store.js';
import type { ChannelRow } from '../db/stores/channels-store.js';
import type { DraftVersionRow, DraftWithParts } from '../db/stores/drafts-store.js';
import type { IdeaWithSignal } from '../db/stores/ideas-store.js';
/** How parts are stored: text and the media on it (only ever on the first part). */
import type { StoredPart } from '../db/stores/parts.js';
import type { MetricsRow, PostRow } from '../db/stores/posts-store.js';
import { PLATFORM_LIMITS } from '../domain.js';
import type { ChannelView } from '../schemas/channels.js';
import type { DraftPartView, DraftView } from '../schemas/drafts.js';
import type { IdeaView } from '../schemas/ideas.js';
import type { MetricsView } from '../schemas/posts.js';
import { charCount } from '../text.js';
import { reconnectMessage } from './channel-credentials.js';
import { engagementsOf } from './metrics.js';

export type { StoredPart };

export const partsView = (parts: StoredPart[]): DraftPartView[] =>
  parts.map((p) => ({ text: p.text, chars: charCount(p.text), media: p.media }));

export const channelView = (r: ChannelRow): ChannelView => ({
  id: r.id,
  brand_id: r.brand_id,
  platform: r.platform,
  handle: r.handle,
  display_name: r.display_name,
  kind: r.kind,
  status: r.status as ChannelView['status'],
  status_reason: r.status_reason ?? null,
  connected_at: r.connected_at,
  created_at: r.created_at,
});

export const ideaView = (r: IdeaWithSignal): IdeaView => ({
  id: r.id,
  brand_id: r.brand_id,
  campaign_id: r.campaign_id,
  title: r.title,
  angle: r.angle,
  notes: r.notes,
  status: r.status,
  signal:
    r.signal_id && r.signal_title && r.signal_kind
      ? {
          id: r.signal_id,
          kind: r.signal_kind,
          title: r.signal_title,
        }
      : null,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export function draftView(r: DraftWithParts): DraftView {
  const parts = partsView(r.parts);
  const limit = PLATFORM_LIMITS[r.platform];
  return {
    id: r.id,
    brand_id: r.brand_id,
    idea_id: r.idea_id,
    platform: r.platform,
    status: r.status as DraftView['status'],
    version: r.current_version,
    parts,
    limit,
    fits: parts.every((p) => p.chars <= limit),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const versionView = (v: DraftVersionRow) => ({
  version: v.version,
  action: v.action as 'create',
  note: v.note,
  parts: partsView(v.parts),
  source: v.source,
  created_at: v.created_at,
});

export const metricsView = (m: MetricsRow): MetricsView => ({
  age_h: m.age_h,
  taken_at: m.taken_at,
  impressions: m.impressions,
  likes: m.likes,
  comments: m.comments,
  shares: m.shares,
  clicks: m.clicks,
  engagements: engagementsOf(m),
});

/** The approval's channel, with a warning while it is pending on a channel that cannot publish. */
export const approvalChannel = (r: ApprovalWithChannel) => {
  const channel = {
    id: r.channel_id,
    platform: r.channel_platform,
    handle: r.channel_handle,
    status_reason: r.channel_status_reason,
  };
  const pending = r.status === 'pending';
  return {
    id: r.channel_id,
    platform: r.channel_platform,
    handle: r.channel_handle,
    status: r.channel_status as ChannelView['status'],
    warning: !pending
      ? null
      : r.channel_status === 'needs_reconnect'
        ? `${reconnectMessage(channel)} It cannot be approved until then.`
        : r.channel_status === 'disconnected'
          ? `The ${r.channel_platform} channel @${r.channel_handle} (${r.channel_id}) is disconnected: approving will fail until it is connected again (Settings → Channels, /settings). Reject it or reconnect.`
          : null,
  };
};

export const isSandboxPost = (p: PostRow) => p.external_id?.startsWith('sandbox-') ?? false;
