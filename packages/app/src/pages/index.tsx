import type { ComponentChildren } from 'preact';
import { AgentsPage } from './agents/index.js';
import { RunPage } from './agents/run.js';
import { ApprovalsPage } from './approvals.js';
import { SettingsPage } from './settings/index.js';

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
  { path: '/agents', title: 'Agents', nav: true, render: () => <AgentsPage /> },
  { path: '/agents/runs/:id', title: 'Agent run', render: (p) => <RunPage id={p.id as string} /> },
  { path: '/settings', title: 'Settings', nav: true, render: () => <SettingsPage /> },
];
