/** JSON columns: objects in, objects out. */
export const toJson = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));
export const fromJson = <T>(text: unknown): T => (text == null ? null : JSON.parse(String(text))) as T;
