import type { ComponentChildren } from 'preact';
import { AgentsPage } from './agents/index.js';
import { RunPage } from './agents/run.js';
import { ApprovalsPage } from './approvals.js';
import { NewBrandPage } from './brand/new-brand.js';
import { CalendarPage } from './plan/calendar.js';
import { DraftEditorPage } from './plan/draft-editor.js';
import { DraftsPage } from './plan/drafts.js';
import { IdeasPage } from './plan/ideas.js';
import { MediaPage } from './plan/media.js';
import { CampaignPage } from './results/campaign.js';
import { CampaignsPage } from './results/campaigns.js';
import { InsightsPage } from './results/insights.js';
import { MemoryPage } from './results/memory.js';
import { PostPage } from './results/post.js';
import { PostsPage } from './results/posts.js';
import { SettingsPage } from './settings/index.js';

/**
 * Every page of the app, in the order of the main navigation. `path` may hold `:params`
 * (`/posts/:id`); `nav` pages appear in the header. Each page lives in its own file in this
 * folder and is added here with one line. The server answers any well-formed page path (any
 * letter case: ids have capitals) with index.html; a path that matches nothing here shows
 * "Page not found" (main.tsx).
 */
export interface PageDef {
  path: string;
  title: string;
  /** Shown in the main navigation. Detail pages (a post, a run) are reached by links. */
  nav?: boolean;
  render(params: Record<string, string>): ComponentChildren;
}

export const PAGES: PageDef[] = [
  { path: '/approvals', title: 'Approvals', nav: true, render: () => <ApprovalsPage /> },
  { path: '/calendar', title: 'Calendar', nav: true, render: () => <CalendarPage /> },
  { path: '/ideas', title: 'Ideas', nav: true, render: () => <IdeasPage /> },
  { path: '/drafts', title: 'Drafts', nav: true, render: () => <DraftsPage /> },
  { path: '/drafts/:id', title: 'Draft', render: (p) => <DraftEditorPage id={p.id as string} /> },
  { path: '/posts', title: 'Posts', nav: true, render: () => <PostsPage /> },
  { path: '/posts/:id', title: 'Post', render: (p) => <PostPage id={p.id as string} /> },
  { path: '/insights', title: 'Insights', nav: true, render: () => <InsightsPage /> },
  { path: '/memory', title: 'Memory', nav: true, render: () => <MemoryPage /> },
  { path: '/agents', title: 'Agents', nav: true, render: () => <AgentsPage /> },
  { path: '/agents/runs/:id', title: 'Agent run', render: (p) => <RunPage id={p.id as string} /> },
  { path: '/library', title: 'Media', nav: true, render: () => <MediaPage /> },
  { path: '/campaigns', title: 'Campaigns', nav: true, render: () => <CampaignsPage /> },
  { path: '/campaigns/:id', title: 'Campaign', render: (p) => <CampaignPage id={p.id as string} /> },
  { path: '/settings', title: 'Settings', nav: true, render: () => <SettingsPage /> },
  { path: '/brands/new', title: 'New brand', render: () => <NewBrandPage /> },
];
