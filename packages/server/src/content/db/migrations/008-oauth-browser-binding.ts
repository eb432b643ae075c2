import type { Migration } from '../../../platform/db/sql.js';

/**
 * RFC 6749 §10.12: a started connect is bound to the browser that started it. `browser_hash` is
 * the SHA-256 of a random value the person's browser holds in an HttpOnly cookie; the callback
 * refuses a state whose browser does not present it. States started before this migration have
 * none and are refused like a state from another browser (they live ten minutes; the person
 * starts again).
 */
export const oauthBrowserBindingMigration: Migration = {
  id: 8,
  name: 'oauth states bound to the browser',
  up: `
    ALTER TABLE oauth_states ADD COLUMN browser_hash TEXT;
  `,
  postgres: `
    ALTER TABLE oauth_states ADD COLUMN browser_hash TEXT COLLATE "C";
  `,
};
