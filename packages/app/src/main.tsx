import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { client, type Mode, type Problem, problemOf } from './api.js';
import { ApprovalsPage } from './approvals.js';
import { ProblemNotice } from './ui.js';
import './styles.css';

/** The app's own pages; the server answers each of these paths with index.html. */
const PAGES = [{ path: '/approvals', title: 'Approvals' }] as const;

/** `/` is the Approvals page (the home page). */
const pageFor = (path: string) => (path === '/' ? PAGES[0] : PAGES.find((p) => p.path === path));

function usePath(): [string, (to: string) => void] {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = (to: string) => {
    history.pushState(null, '', to);
    setPath(to);
  };
  return [path, navigate];
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

function App() {
  const [path, navigate] = usePath();
  const page = pageFor(path);
  useEffect(() => {
    document.title = page ? `${page.title} · svc` : 'Page not found · svc';
  }, [page]);
  const follow = (to: string) => (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/" onClick={follow('/')}>
          svc
        </a>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <a href={p.path} aria-current={page === p ? 'page' : undefined} onClick={follow(p.path)}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ModeLabel />
      </header>
      <main id="main" tabIndex={-1}>
        {page ? (
          <ApprovalsPage />
        ) : (
          <>
            <h1>Page not found</h1>
            <ProblemNotice problem={{ message: `There is no page at ${path}.`, requestId: null }} />
            <p>
              <a href="/" onClick={follow('/')}>
                Go to Approvals
              </a>
            </p>
          </>
        )}
      </main>
      <footer class="foot">
        <p>
          Coming next: calendar, ideas, drafts, posts and results, brand memory, agents, media, campaigns and
          settings. Until then, everything is in the <a href="/docs">REST API</a> and over MCP.
        </p>
      </footer>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
