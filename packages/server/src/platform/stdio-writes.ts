/**
 * Writes to the process's own stdout or stderr that may fail without harm: the CLI's notes to the
 * person (`Next steps`, the SIGTERM notice, migration notes). Node reports a failed write to
 * these streams (ENOSPC when the disk holding a redirected stderr is full, EPIPE when the reader
 * of the pipe has gone) as an `error` event, and with no listener that event kills the process:
 * a running server died because a line meant for a person could not be written. The log survives
 * the same failures its own way (`log-destination.ts`); these lines are only dropped.
 */
const tolerant = new WeakSet<NodeJS.WriteStream>();

const dropped = () => {
  // The line is lost and nobody can be told: the stream that would carry the news is this one.
};

/**
 * From now on a failed write to `stream` is dropped, never fatal. Once per stream; the listener
 * also covers writes others make to it (Node's own warnings go to stderr).
 */
export function dropFailedWrites(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!tolerant.has(stream)) {
    stream.on('error', dropped);
    tolerant.add(stream);
  }
  return stream;
}

/** One note for the person on stderr; lost, not fatal, if it cannot be written. */
export function noteOnStderr(text: string): void {
  try {
    dropFailedWrites(process.stderr).write(text);
  } catch {
    // A stream may also throw at once (one already ended); the note is dropped the same way.
  }
}
