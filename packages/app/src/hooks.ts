import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Problem, problemOf } from './api.js';

/**
 * Loads something for a page and keeps it with its failure: `data` is null while loading (or
 * after a failure), `problem` says in words what went wrong, `reload()` fetches again (after a
 * change). A load that finishes after a newer one started is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const generation = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller lists what `load` depends on.
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setProblem(null);
    } catch (err) {
      if (mine !== generation.current) return;
      setProblem(problemOf(err));
    }
  }, deps);
  useEffect(() => {
    setData(null);
    reload();
  }, [reload]);
  return { data, problem, reload, setData };
}

/**
 * Runs one change the person asked for: `busy` while it runs (buttons disable), then `notice`
 * says what happened (read out by screen readers through a status region) or `problem` says why
 * not. `where` names the control that asked (`<Outcome where=…>` beside it shows the outcome
 * there, not at the top of the page); `done` may be a function when the words depend on the
 * result. `after` (a reload) runs once the change is answered, worked or not, and before the
 * outcome is said: what is said then matches what is shown, for a person and for a test that
 * reads the page once it is said. Returns whether it worked, so a form can close; a failed form
 * keeps what was typed.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [where, setWhere] = useState('');
  const run = async (
    change: () => Promise<unknown>,
    done: string | (() => string),
    at = '',
    after?: (ok: boolean) => unknown,
  ): Promise<boolean> => {
    setBusy(true);
    setWhere(at);
    setProblem(null);
    setNotice('');
    let failure: Problem | null = null;
    try {
      await change();
    } catch (err) {
      failure = problemOf(err);
    }
    try {
      await after?.(failure === null);
    } finally {
      if (failure) setProblem(failure);
      else setNotice(typeof done === 'string' ? done : done());
      setBusy(false);
    }
    return failure === null;
  };
  return { busy, notice, problem, where, run, setProblem };
}

/**
 * Moves the focus to an element the next render puts on the page (the button a closing form gives
 * back, the "Yes" of a confirmation): `focusAfterRender(() => ref.current)`. It runs in a layout
 * effect, before the next paint, not in a timeout or an animation frame: a key pressed at once
 * after the click (a fast person, or a test) would otherwise reach whatever had the focus before.
 */
export function useFocusAfterRender() {
  const target = useRef<(() => HTMLElement | null | undefined) | null>(null);
  const [, rerender] = useState(0);
  useLayoutEffect(() => {
    const find = target.current;
    if (!find) return;
    target.current = null;
    find()?.focus();
  });
  return (find: () => HTMLElement | null | undefined) => {
    target.current = find;
    rerender((n) => n + 1);
  };
}
