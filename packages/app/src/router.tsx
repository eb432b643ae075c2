import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';

/**
 * Client-side navigation over the History API, small enough not to need a router library: the
 * server answers every app page path with index.html (content/web-app.ts), and the app matches it
 * against the page table in pages/index.ts.
 */
export interface Location {
  path: string;
  query: URLSearchParams;
  /**
   * What the page the person came from just did, when it sent them here on success
   * (`navigate('/posts', { said: 'Post deleted.' })`): the page they land on says it in its status
   * region (PageFrame), since the page that did it is gone. Kept in memory only, so a reload, Back
   * or the next move does not say it again.
   */
  said?: string;
}

const here = (): Location => ({ path: location.pathname, query: new URLSearchParams(location.search) });

const RouterContext = createContext<{
  at: Location;
  navigate: (to: string, after?: { said?: string }) => void;
}>({
  at: here(),
  navigate: () => undefined,
});

export function Router({ children }: { children: ComponentChildren }) {
  const [at, setAt] = useState(here);
  useEffect(() => {
    const onPop = () => setAt(here());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = (to: string, after?: { said?: string }) => {
    history.pushState(null, '', to);
    setAt({ ...here(), said: after?.said });
    scrollTo(0, 0);
  };
  return <RouterContext.Provider value={{ at, navigate }}>{children}</RouterContext.Provider>;
}

/** Where the app is, and how to go elsewhere (`navigate('/posts/post_1')`). */
export const useLocation = () => useContext(RouterContext);

/**
 * Matches `/posts/:id` against `/posts/post_1` → `{ id: 'post_1' }`; null when it does not match.
 * Path segments are exact and case-sensitive, as the server's are.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith(':')) {
      if (!g) return null;
      params[w.slice(1)] = decodeURIComponent(g);
    } else if (w !== g) return null;
  }
  return params;
}

/** A real link (open in a new tab works) that navigates in place on a plain click. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  current?: boolean;
}) {
  const { navigate } = useLocation();
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.button !== 0) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
