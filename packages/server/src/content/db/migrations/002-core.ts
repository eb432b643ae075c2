import type { Migration } from '../../../platform/db/sql.js';

/**
 * The content domain: brands and memory, channels, signals, ideas, drafts and versions, posts
 * and metrics, replies, approvals, agent runs, automations, digests, campaigns and canvas,
 * memory proposals, the MCP call log and the sandbox clock. Times are ISO-8601 UTC strings,
 * which sort correctly as text. Lists page newest first by (sort column, id), hence the indexes.
 */
export const coreMigration: Migration = {
  id: 2,
  name: 'content core',
  up: `
    CREATE TABLE brands (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      memory TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX brands_created ON brands (created_at DESC, id DESC);

    CREATE TABLE channels (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      handle TEXT NOT NULL,
      display_name TEXT NOT NULL,
      kind TEXT NOT NULL,
      status TEXT NOT NULL,
      connected_at TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX channels_brand ON channels (brand_id, created_at DESC, id DESC);
    CREATE UNIQUE INDEX channels_one_per_platform ON channels (brand_id, platform) WHERE status = 'connected';

    CREATE TABLE signals (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      title TEXT NOT NULL,
      summary TEXT NOT NULL,
      source_url TEXT,
      strength REAL NOT NULL,
      observed_at TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX signals_brand ON signals (brand_id, observed_at DESC, id DESC);

    CREATE TABLE campaigns (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      goal TEXT,
      starts_on TEXT,
      ends_on TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX campaigns_created ON campaigns (created_at DESC, id DESC);
    CREATE INDEX campaigns_brand ON campaigns (brand_id, created_at DESC, id DESC);

    CREATE TABLE canvas_items (
      id TEXT PRIMARY KEY,
      campaign_id TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      ref_id TEXT,
      text TEXT NOT NULL,
      color TEXT NOT NULL,
      x REAL NOT NULL,
      y REAL NOT NULL,
      w REAL NOT NULL,
      h REAL NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX canvas_items_campaign ON canvas_items (campaign_id, created_at, id);

    CREATE TABLE ideas (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      campaign_id TEXT REFERENCES campaigns(id) ON DELETE SET NULL,
      signal_id TEXT REFERENCES signals(id) ON DELETE SET NULL,
      title TEXT NOT NULL,
      angle TEXT,
      notes TEXT,
      status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX ideas_brand ON ideas (brand_id, updated_at DESC, id DESC);
    CREATE INDEX ideas_brand_status ON ideas (brand_id, status, updated_at DESC, id DESC);

    CREATE TABLE drafts (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      idea_id TEXT REFERENCES ideas(id) ON DELETE SET NULL,
      platform TEXT NOT NULL,
      status TEXT NOT NULL,
      current_version INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX drafts_brand ON drafts (brand_id, updated_at DESC, id DESC);
    CREATE UNIQUE INDEX drafts_one_per_platform ON drafts (idea_id, platform) WHERE idea_id IS NOT NULL;

    CREATE TABLE draft_versions (
      draft_id TEXT NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      parts TEXT NOT NULL,
      action TEXT NOT NULL,
      note TEXT,
      source TEXT NOT NULL,
      key_id TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (draft_id, version)
    );

    CREATE TABLE posts (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      draft_id TEXT REFERENCES drafts(id) ON DELETE SET NULL,
      draft_version INTEGER,
      idea_id TEXT REFERENCES ideas(id) ON DELETE SET NULL,
      status TEXT NOT NULL,
      parts TEXT NOT NULL,
      scheduled_for TEXT,
      published_at TEXT,
      sort_at TEXT NOT NULL,
      permalink TEXT,
      external_id TEXT,
      failure TEXT,
      settled_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX posts_brand ON posts (brand_id, sort_at DESC, id DESC);
    CREATE INDEX posts_brand_status ON posts (brand_id, status, sort_at DESC, id DESC);
    CREATE INDEX posts_due ON posts (status, scheduled_for);
    CREATE INDEX posts_channel_slot ON posts (channel_id, scheduled_for);
    CREATE INDEX posts_published ON posts (status, published_at);

    CREATE TABLE post_metrics (
      post_id TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
      age_h INTEGER NOT NULL,
      taken_at TEXT NOT NULL,
      impressions INTEGER NOT NULL,
      likes INTEGER NOT NULL,
      comments INTEGER NOT NULL,
      shares INTEGER NOT NULL,
      clicks INTEGER NOT NULL,
      PRIMARY KEY (post_id, age_h)
    );

    CREATE TABLE replies (
      id TEXT PRIMARY KEY,
      post_id TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      author TEXT NOT NULL,
      text TEXT NOT NULL,
      theme TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX replies_post ON replies (post_id, created_at DESC, id DESC);
    CREATE INDEX replies_brand ON replies (brand_id, created_at DESC);

    CREATE TABLE agent_runs (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      brand_id TEXT REFERENCES brands(id) ON DELETE CASCADE,
      parent_run_id TEXT REFERENCES agent_runs(id) ON DELETE CASCADE,
      status TEXT NOT NULL,
      inputs TEXT NOT NULL,
      steps TEXT NOT NULL,
      output TEXT,
      error TEXT,
      source TEXT NOT NULL,
      key_id TEXT,
      person_id TEXT,
      automation_id TEXT,
      started_at TEXT NOT NULL,
      finished_at TEXT
    );
    CREATE INDEX agent_runs_parent ON agent_runs (parent_run_id);
    CREATE INDEX agent_runs_started ON agent_runs (started_at DESC, id DESC);

    CREATE TABLE approvals (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      draft_id TEXT NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
      draft_version INTEGER NOT NULL,
      channel_id TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      slot TEXT NOT NULL,
      reason TEXT,
      voice_check TEXT NOT NULL,
      status TEXT NOT NULL,
      pending_rank INTEGER NOT NULL,
      decided_at TEXT,
      decided_by TEXT,
      decision_reason TEXT,
      post_id TEXT REFERENCES posts(id) ON DELETE SET NULL,
      run_id TEXT REFERENCES agent_runs(id) ON DELETE SET NULL,
      source TEXT NOT NULL,
      key_id TEXT,
      person_id TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX approvals_queue ON approvals (pending_rank DESC, created_at DESC, id DESC);
    CREATE INDEX approvals_brand_queue ON approvals (brand_id, pending_rank DESC, created_at DESC, id DESC);
    CREATE INDEX approvals_channel_slot ON approvals (channel_id, status, slot);
    CREATE INDEX approvals_run ON approvals (run_id);

    CREATE TABLE automations (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      inputs TEXT NOT NULL,
      trigger TEXT NOT NULL,
      trigger_type TEXT NOT NULL,
      event TEXT,
      daily_cap INTEGER NOT NULL,
      enabled INTEGER NOT NULL,
      next_run_at TEXT,
      last_run_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX automations_created ON automations (created_at DESC, id DESC);
    CREATE INDEX automations_due ON automations (trigger_type, enabled, next_run_at);
    CREATE INDEX automations_event ON automations (event, enabled);

    CREATE TABLE automation_fires (
      id TEXT PRIMARY KEY,
      automation_id TEXT NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
      day TEXT NOT NULL,
      fired_at TEXT NOT NULL,
      trigger TEXT NOT NULL,
      outcome TEXT NOT NULL,
      run_id TEXT REFERENCES agent_runs(id) ON DELETE SET NULL,
      message TEXT
    );
    CREATE INDEX automation_fires_day ON automation_fires (day, outcome);
    CREATE INDEX automation_fires_automation ON automation_fires (automation_id, day, outcome);

    CREATE TABLE digests (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      run_id TEXT REFERENCES agent_runs(id) ON DELETE SET NULL,
      period_start TEXT NOT NULL,
      period_end TEXT NOT NULL,
      body TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX digests_brand ON digests (brand_id, created_at DESC, id DESC);

    CREATE TABLE memory_proposals (
      id TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      run_id TEXT REFERENCES agent_runs(id) ON DELETE SET NULL,
      change TEXT NOT NULL,
      why TEXT NOT NULL,
      lift REAL NOT NULL,
      evidence TEXT NOT NULL,
      status TEXT NOT NULL,
      pending_rank INTEGER NOT NULL,
      decided_at TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX memory_proposals_queue ON memory_proposals (pending_rank DESC, created_at DESC, id DESC);
    CREATE INDEX memory_proposals_brand ON memory_proposals (brand_id, pending_rank DESC, created_at DESC, id DESC);

    CREATE TABLE mcp_calls (
      id TEXT PRIMARY KEY,
      key_id TEXT,
      tool TEXT NOT NULL,
      args TEXT NOT NULL,
      outcome TEXT NOT NULL,
      error_code TEXT,
      error_message TEXT,
      duration_ms REAL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX mcp_calls_created ON mcp_calls (created_at DESC, id DESC);
    CREATE INDEX mcp_calls_key ON mcp_calls (key_id, created_at DESC, id DESC);

    CREATE TABLE sandbox_clock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      offset_ms INTEGER NOT NULL
    );

    CREATE TABLE workspace_meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );
  `,
  postgres: `
    CREATE TABLE brands (
      id TEXT COLLATE "C" PRIMARY KEY,
      name TEXT COLLATE "C" NOT NULL,
      memory TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX brands_created ON brands (created_at DESC, id DESC);

    CREATE TABLE channels (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      platform TEXT COLLATE "C" NOT NULL,
      handle TEXT COLLATE "C" NOT NULL,
      display_name TEXT COLLATE "C" NOT NULL,
      kind TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      connected_at TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX channels_brand ON channels (brand_id, created_at DESC, id DESC);
    CREATE UNIQUE INDEX channels_one_per_platform ON channels (brand_id, platform) WHERE status = 'connected';

    CREATE TABLE signals (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      kind TEXT COLLATE "C" NOT NULL,
      title TEXT COLLATE "C" NOT NULL,
      summary TEXT COLLATE "C" NOT NULL,
      source_url TEXT COLLATE "C",
      strength DOUBLE PRECISION NOT NULL,
      observed_at TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX signals_brand ON signals (brand_id, observed_at DESC, id DESC);

    CREATE TABLE campaigns (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      name TEXT COLLATE "C" NOT NULL,
      goal TEXT COLLATE "C",
      starts_on TEXT COLLATE "C",
      ends_on TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX campaigns_created ON campaigns (created_at DESC, id DESC);
    CREATE INDEX campaigns_brand ON campaigns (brand_id, created_at DESC, id DESC);

    CREATE TABLE canvas_items (
      id TEXT COLLATE "C" PRIMARY KEY,
      campaign_id TEXT COLLATE "C" NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      kind TEXT COLLATE "C" NOT NULL,
      ref_id TEXT COLLATE "C",
      text TEXT COLLATE "C" NOT NULL,
      color TEXT COLLATE "C" NOT NULL,
      x DOUBLE PRECISION NOT NULL,
      y DOUBLE PRECISION NOT NULL,
      w DOUBLE PRECISION NOT NULL,
      h DOUBLE PRECISION NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX canvas_items_campaign ON canvas_items (campaign_id, created_at, id);

    CREATE TABLE ideas (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      campaign_id TEXT COLLATE "C" REFERENCES campaigns(id) ON DELETE SET NULL,
      signal_id TEXT COLLATE "C" REFERENCES signals(id) ON DELETE SET NULL,
      title TEXT COLLATE "C" NOT NULL,
      angle TEXT COLLATE "C",
      notes TEXT COLLATE "C",
      status TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX ideas_brand ON ideas (brand_id, updated_at DESC, id DESC);
    CREATE INDEX ideas_brand_status ON ideas (brand_id, status, updated_at DESC, id DESC);

    CREATE TABLE drafts (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      idea_id TEXT COLLATE "C" REFERENCES ideas(id) ON DELETE SET NULL,
      platform TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      current_version BIGINT NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX drafts_brand ON drafts (brand_id, updated_at DESC, id DESC);
    CREATE UNIQUE INDEX drafts_one_per_platform ON drafts (idea_id, platform) WHERE idea_id IS NOT NULL;

    CREATE TABLE draft_versions (
      draft_id TEXT COLLATE "C" NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
      version BIGINT NOT NULL,
      parts TEXT COLLATE "C" NOT NULL,
      action TEXT COLLATE "C" NOT NULL,
      note TEXT COLLATE "C",
      source TEXT COLLATE "C" NOT NULL,
      key_id TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (draft_id, version)
    );

    CREATE TABLE posts (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      channel_id TEXT COLLATE "C" NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      platform TEXT COLLATE "C" NOT NULL,
      draft_id TEXT COLLATE "C" REFERENCES drafts(id) ON DELETE SET NULL,
      draft_version BIGINT,
      idea_id TEXT COLLATE "C" REFERENCES ideas(id) ON DELETE SET NULL,
      status TEXT COLLATE "C" NOT NULL,
      parts TEXT COLLATE "C" NOT NULL,
      scheduled_for TEXT COLLATE "C",
      published_at TEXT COLLATE "C",
      sort_at TEXT COLLATE "C" NOT NULL,
      permalink TEXT COLLATE "C",
      external_id TEXT COLLATE "C",
      failure TEXT COLLATE "C",
      settled_at TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX posts_brand ON posts (brand_id, sort_at DESC, id DESC);
    CREATE INDEX posts_brand_status ON posts (brand_id, status, sort_at DESC, id DESC);
    CREATE INDEX posts_due ON posts (status, scheduled_for);
    CREATE INDEX posts_channel_slot ON posts (channel_id, scheduled_for);
    CREATE INDEX posts_published ON posts (status, published_at);

    CREATE TABLE post_metrics (
      post_id TEXT COLLATE "C" NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
      age_h BIGINT NOT NULL,
      taken_at TEXT COLLATE "C" NOT NULL,
      impressions BIGINT NOT NULL,
      likes BIGINT NOT NULL,
      comments BIGINT NOT NULL,
      shares BIGINT NOT NULL,
      clicks BIGINT NOT NULL,
      PRIMARY KEY (post_id, age_h)
    );

    CREATE TABLE replies (
      id TEXT COLLATE "C" PRIMARY KEY,
      post_id TEXT COLLATE "C" NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      author TEXT COLLATE "C" NOT NULL,
      text TEXT COLLATE "C" NOT NULL,
      theme TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX replies_post ON replies (post_id, created_at DESC, id DESC);
    CREATE INDEX replies_brand ON replies (brand_id, created_at DESC);

    CREATE TABLE agent_runs (
      id TEXT COLLATE "C" PRIMARY KEY,
      agent_id TEXT COLLATE "C" NOT NULL,
      brand_id TEXT COLLATE "C" REFERENCES brands(id) ON DELETE CASCADE,
      parent_run_id TEXT COLLATE "C" REFERENCES agent_runs(id) ON DELETE CASCADE,
      status TEXT COLLATE "C" NOT NULL,
      inputs TEXT COLLATE "C" NOT NULL,
      steps TEXT COLLATE "C" NOT NULL,
      output TEXT COLLATE "C",
      error TEXT COLLATE "C",
      source TEXT COLLATE "C" NOT NULL,
      key_id TEXT COLLATE "C",
      person_id TEXT COLLATE "C",
      automation_id TEXT COLLATE "C",
      started_at TEXT COLLATE "C" NOT NULL,
      finished_at TEXT COLLATE "C"
    );
    CREATE INDEX agent_runs_parent ON agent_runs (parent_run_id);
    CREATE INDEX agent_runs_started ON agent_runs (started_at DESC, id DESC);

    CREATE TABLE approvals (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      draft_id TEXT COLLATE "C" NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
      draft_version BIGINT NOT NULL,
      channel_id TEXT COLLATE "C" NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      slot TEXT COLLATE "C" NOT NULL,
      reason TEXT COLLATE "C",
      voice_check TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      pending_rank BIGINT NOT NULL,
      decided_at TEXT COLLATE "C",
      decided_by TEXT COLLATE "C",
      decision_reason TEXT COLLATE "C",
      post_id TEXT COLLATE "C" REFERENCES posts(id) ON DELETE SET NULL,
      run_id TEXT COLLATE "C" REFERENCES agent_runs(id) ON DELETE SET NULL,
      source TEXT COLLATE "C" NOT NULL,
      key_id TEXT COLLATE "C",
      person_id TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX approvals_queue ON approvals (pending_rank DESC, created_at DESC, id DESC);
    CREATE INDEX approvals_brand_queue ON approvals (brand_id, pending_rank DESC, created_at DESC, id DESC);
    CREATE INDEX approvals_channel_slot ON approvals (channel_id, status, slot);
    CREATE INDEX approvals_run ON approvals (run_id);

    CREATE TABLE automations (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      name TEXT COLLATE "C" NOT NULL,
      agent_id TEXT COLLATE "C" NOT NULL,
      inputs TEXT COLLATE "C" NOT NULL,
      trigger TEXT COLLATE "C" NOT NULL,
      trigger_type TEXT COLLATE "C" NOT NULL,
      event TEXT COLLATE "C",
      daily_cap BIGINT NOT NULL,
      enabled BOOLEAN NOT NULL,
      next_run_at TEXT COLLATE "C",
      last_run_at TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX automations_created ON automations (created_at DESC, id DESC);
    CREATE INDEX automations_due ON automations (trigger_type, enabled, next_run_at);
    CREATE INDEX automations_event ON automations (event, enabled);

    CREATE TABLE automation_fires (
      id TEXT COLLATE "C" PRIMARY KEY,
      automation_id TEXT COLLATE "C" NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
      day TEXT COLLATE "C" NOT NULL,
      fired_at TEXT COLLATE "C" NOT NULL,
      trigger TEXT COLLATE "C" NOT NULL,
      outcome TEXT COLLATE "C" NOT NULL,
      run_id TEXT COLLATE "C" REFERENCES agent_runs(id) ON DELETE SET NULL,
      message TEXT COLLATE "C"
    );
    CREATE INDEX automation_fires_day ON automation_fires (day, outcome);
    CREATE INDEX automation_fires_automation ON automation_fires (automation_id, day, outcome);

    CREATE TABLE digests (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      run_id TEXT COLLATE "C" REFERENCES agent_runs(id) ON DELETE SET NULL,
      period_start TEXT COLLATE "C" NOT NULL,
      period_end TEXT COLLATE "C" NOT NULL,
      body TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX digests_brand ON digests (brand_id, created_at DESC, id DESC);

    CREATE TABLE memory_proposals (
      id TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      run_id TEXT COLLATE "C" REFERENCES agent_runs(id) ON DELETE SET NULL,
      change TEXT COLLATE "C" NOT NULL,
      why TEXT COLLATE "C" NOT NULL,
      lift DOUBLE PRECISION NOT NULL,
      evidence TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      pending_rank BIGINT NOT NULL,
      decided_at TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX memory_proposals_queue ON memory_proposals (pending_rank DESC, created_at DESC, id DESC);
    CREATE INDEX memory_proposals_brand ON memory_proposals (brand_id, pending_rank DESC, created_at DESC, id DESC);

    CREATE TABLE mcp_calls (
      id TEXT COLLATE "C" PRIMARY KEY,
      key_id TEXT COLLATE "C",
      tool TEXT COLLATE "C" NOT NULL,
      args TEXT COLLATE "C" NOT NULL,
      outcome TEXT COLLATE "C" NOT NULL,
      error_code TEXT COLLATE "C",
      error_message TEXT COLLATE "C",
      duration_ms DOUBLE PRECISION,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX mcp_calls_created ON mcp_calls (created_at DESC, id DESC);
    CREATE INDEX mcp_calls_key ON mcp_calls (key_id, created_at DESC, id DESC);

    CREATE TABLE sandbox_clock (
      id BIGINT PRIMARY KEY CHECK (id = 1),
      offset_ms BIGINT NOT NULL
    );

    CREATE TABLE workspace_meta (
      key TEXT COLLATE "C" PRIMARY KEY,
      value TEXT COLLATE "C" NOT NULL
    );
  `,
};
