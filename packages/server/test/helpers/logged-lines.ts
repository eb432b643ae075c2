import { afterEach } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';

/**
 * The production logger (createLogger, its redaction and all) writing into `lines`, one parsed
 * line an entry, for the test to read back; emptied after each test of the calling file.
 */
export function loggedLines(level: 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level,
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  afterEach(() => {
    lines.length = 0;
  });
  return {
    logger,
    lines,
    /** The lines whose message holds `text`. */
    saying: (text: string) => lines.filter((l) => String(l.msg).includes(text)),
  };
}
