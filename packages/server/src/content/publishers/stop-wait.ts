/**
 * A pause between checks on a platform's media processing that the service's stop ends at once,
 * rejecting with the stop's reason. Nothing is published while a platform processes media, so the
 * post is simply tried again later; waiting instead held the stop (the drain for a request's
 * publish, close() for the background pass's) for the platform's pace, a minute or more.
 */
export async function pauseUnlessStopped(
  wait: () => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!signal) return wait();
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([wait(), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
