import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { client, type Mode, type Problem, problemOf } from './api.js';
import { BrandPicker, BrandProvider } from './brand.js';
import { PAGES, type PageDef } from './pages/index.js';
import { Link, matchPath, Router, useLocation } from './router.js';
import { ProblemNotice } from './ui.js';
import './styles.css';

/** `/` is the Approvals page (the home page). */
function pageFor(path: string): { page: PageDef; params: Record<string, string> } | null {
  const wanted = path === '/' ? '/approvals' : path;
  for (const page of PAGES) {
    const params = matchPath(page.path, wanted);
    if (params) return { page, params };
  }
  return null;
}

function ModeLabel() {
  const [mode, setMode] = useState<Mode | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  useEffect(() => {
    client.mode.retrieve().then(setMode, (err: unknown) => setProblem(problemOf(err)));
  }, []);
  if (problem) return <span class="mode mode-unknown">mode unknown</span>;
  if (!mode) return <span class="mode">…</span>;
  return (
    <span class={`mode mode-${mode.mode}`} title="GET /v1/mode">
      {mode.mode} · {mode.model}
    </span>
  );
}

/** The nav link of the page a detail page belongs to (`/posts/:id` → Posts) is current too. */
const isCurrent = (nav: PageDef, path: string) =>
  path === nav.path || path.startsWith(`${nav.path}/`) || (path === '/' && nav.path === '/approvals');

/**
 * After the app moves to another page, the focus goes to that page's heading, so a screen reader
 * reads where the person is and Tab starts from the top of the page (not from the link they left).
 * The first load keeps the browser's own focus; a change of query (a filter) is not a new page.
 * A layout effect, before the next paint: the heading is on the page by then (PageFrame draws it
 * at once), and a later move (an animation frame) would take the focus from a field the person
 * had already clicked into and was typing in.
 */
function useFocusHeadingOnNavigation(path: string) {
  const first = useRef(true);
  useLayoutEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading && !heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
    (heading ?? document.getElementById('main'))?.focus();
  }, [path]);
}

function Shell() {
  const { at } = useLocation();
  const found = pageFor(at.path);
  // On a phone the navigation folds behind a Menu button, so the header stays one line.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    document.title = found ? `${found.page.title} · svc` : 'Page not found · svc';
  }, [found?.page]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes the menu.
  useEffect(() => setMenuOpen(false), [at.path]);
  useFocusHeadingOnNavigation(at.path);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link class="brand" href="/">
          svc
        </Link>
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="top-menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <ModeLabel />
        <div id="top-menu" class={menuOpen ? 'top-menu open' : 'top-menu'}>
          <nav aria-label="Main">
            <ul>
              {PAGES.filter((p) => p.nav).map((p) => (
                <li key={p.path}>
                  <Link href={p.path} current={isCurrent(p, at.path)}>
                    {p.title}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <BrandPicker />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {found ? (
          found.page.render(found.params)
        ) : (
          <>
            <h1>Page not found</h1>
            <ProblemNotice problem={{ message: `There is no page at ${at.path}.`, requestId: null }} />
            <p>
              <Link href="/">Go to Approvals</Link>
            </p>
          </>
        )}
      </main>
      <footer class="foot">
        <p>
          Everything here is also in the <a href="/docs">REST API</a> and over MCP.
        </p>
      </footer>
    </>
  );
}

const root = document.getElementById('app');
// index.html's "Loading svc…" line holds the place until now; Preact would render beside it.
if (root) root.textContent = '';
if (root)
  render(
    <Router>
      <BrandProvider>
        <Shell />
      </BrandProvider>
    </Router>,
    root,
  );
