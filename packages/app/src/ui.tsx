import type { Problem } from './api.js';

/** An error in words, with the request id to quote. */
export function ProblemNotice({ problem }: { problem: Problem }) {
  return (
    <div class="problem" role="alert">
      <p>{problem.message}</p>
      {problem.requestId && (
        <p class="request-id">
          Request id: <code>{problem.requestId}</code>
        </p>
      )}
    </div>
  );
}
