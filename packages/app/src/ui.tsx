import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Problem } from './api.js';
import { useLocation } from './router.js';

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

/** What just happened, read out by screen readers. Always rendered, so the region exists before the text. */
export function Notice({ text }: { text: string }) {
  return (
    <div role="status" class="notice">
      {text}
    </div>
  );
}

/**
 * The outcome of an action, shown beside the control that asked for it (`where`, as passed to
 * useAction's run). The status region is always there, so what it says is read out.
 */
export function Outcome(props: {
  action: { where: string; notice: string; problem: Problem | null };
  where: string;
}) {
  const here = props.action.where === props.where;
  return (
    <>
      <Notice text={here ? props.action.notice : ''} />
      {here && props.action.problem && <ProblemNotice problem={props.action.problem} />}
    </>
  );
}

/** A loading line; `what` names what is loading ("the calendar"). */
export function Loading({ what }: { what: string }) {
  return <p class="loading">Loading {what}…</p>;
}

/** An empty state that says what to do next. */
export function Empty({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div class="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

/**
 * The usual frame of a page: its heading, the status region, the failure if any, and the
 * loading line until `ready`.
 */
export function PageFrame(props: {
  title: string;
  problem?: Problem | null;
  notice?: string;
  loading?: string | false;
  actions?: ComponentChildren;
  children?: ComponentChildren;
}) {
  const { at } = useLocation();
  // What the previous page did (Location.said), put in after the region is on the page: text a
  // live region already holds when it appears is not read out.
  const [arrived, setArrived] = useState('');
  useEffect(() => setArrived(at.said ?? ''), [at]);
  return (
    <section aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title">{props.title}</h1>
        {props.actions}
      </div>
      <Notice text={props.notice || arrived} />
      {props.problem && <ProblemNotice problem={props.problem} />}
      {props.loading && !props.problem ? <Loading what={props.loading} /> : props.children}
    </section>
  );
}
