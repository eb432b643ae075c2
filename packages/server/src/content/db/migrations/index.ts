import type { Migration } from '../../../platform/db/sqlite.js';
import { apiKeysMigration } from './001-api-keys.js';

/**
 * Forward-only and numbered. Each area of the content service owns its own migration file;
 * append new ones, never reorder.
 */
export const contentMigrations: Migration[] = [apiKeysMigration];
