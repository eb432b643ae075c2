import type { Logger } from './logger.js';

/**
 * A service's background passes that have started and not yet settled, so its close() can wait
 * for them before it closes the database. Closing under a pass cut it between a call to an outside
 * party and the write that records the answer: a content post published on the platform but left
 * `publishing` in the database (unconfirmed at the next start), a UCP order placed but its
 * checkout left `confirming`. A pass's failure is its own to log; here it only ends the wait.
 */
export function backgroundWork(what: string, logger: Logger) {
  const running = new Set<Promise<unknown>>();
  return {
    /** Runs `pass` and keeps it in the set until it settles; answers what it answers. */
    track<T>(pass: Promise<T>): Promise<T> {
      running.add(pass);
      const done = () => running.delete(pass);
      pass.then(done, done);
      return pass;
    },
    /** Settles once every pass started so far has; says so in the log when one was running. */
    async settled(): Promise<void> {
      if (!running.size) return;
      logger.info({ passes: running.size }, `stopping: waiting for the ${what} in flight to finish`);
      // A pass that started meanwhile is waited for too (none should: a stop starts no new pass).
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}
