import { keptJsonText } from '../sliced/kept-json.js';

/**
 * JSON columns: objects in, objects out. A value whose text was already made in slices
 * (sliced/kept-json.ts: a large offer) is written as that text, not serialised again in one call.
 */
export const toJson = (value: unknown): string | null =>
  value == null ? null : (keptJsonText(value) ?? JSON.stringify(value));
export const fromJson = <T>(text: unknown): T => (text == null ? null : JSON.parse(String(text))) as T;
