import type { ComponentChildren } from 'preact';
import { ApprovalsPage } from './approvals.js';
import { CampaignPage } from './results/campaign.js';
import { CampaignsPage } from './results/campaigns.js';
import { InsightsPage } from './results/insights.js';
import { MemoryPage } from './results/memory.js';
import { PostPage } from './results/post.js';
import { PostsPage } from './results/posts.js';

/**
 * Every page of the app, in the order of the main navigation. `path` may hold `:params`
 * (`/posts/:id`); `nav` pages appear in the header. Each page lives in its own file in this
 * folder and is added here with one line. The server answers any lowercase page path with
 * index.html; a path that matches nothing here shows "Page not found".
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
  { path: '/posts', title: 'Posts', nav: true, render: () => <PostsPage /> },
  { path: '/posts/:id', title: 'Post', render: (p) => <PostPage id={p.id as string} /> },
  { path: '/insights', title: 'Insights', nav: true, render: () => <InsightsPage /> },
  { path: '/memory', title: 'Memory', nav: true, render: () => <MemoryPage /> },
  { path: '/campaigns', title: 'Campaigns', nav: true, render: () => <CampaignsPage /> },
  { path: '/campaigns/:id', title: 'Campaign', render: (p) => <CampaignPage id={p.id as string} /> },
];
