/**
 * The dashboard shell: the session check on load, the sign-in form when there is no session,
 * otherwise the header (with sign-out), the navigation list and the current page.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { currentSession, describeError, onSessionEnded, signOut, type Session } from './api';
import { Link, PAGES, usePage, type PagePath } from './router';
import { SignIn } from './pages/sign-in';
import { Overview } from './pages/overview';
import { Keys } from './pages/keys';
import { Workspaces } from './pages/workspaces';
import { Usage } from './pages/usage';
import { Rankings } from './pages/rankings';
import { Providers } from './pages/providers';

/** Each page; the ones that need it read the session (the Rankings page, its scope). */
const VIEWS: Record<PagePath, (props: { session: Session }) => JSX.Element> = {
  '/': Overview,
  '/keys': Keys,
  '/workspaces': Workspaces,
  '/usage': Usage,
  '/rankings': Rankings,
  '/providers': Providers,
};

type Auth =
  { state: 'checking' } | { state: 'signed-out'; notice: string | null } | { state: 'signed-in'; session: Session };

/** The whole app. */
export function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'checking' });
  useEffect(() => {
    currentSession().then(
      (session) => setAuth(session ? { state: 'signed-in', session } : { state: 'signed-out', notice: null }),
      (err: unknown) => setAuth({ state: 'signed-out', notice: `Could not check the session: ${describeError(err)}` }),
    );
    return onSessionEnded(() =>
      setAuth({ state: 'signed-out', notice: 'Your session ended. Sign in again to continue.' }),
    );
  }, []);
  if (auth.state === 'checking')
    return (
      <p class="status" role="status">
        Loading…
      </p>
    );
  if (auth.state === 'signed-out')
    return <SignIn notice={auth.notice} onSignedIn={(session) => setAuth({ state: 'signed-in', session })} />;
  return <Shell session={auth.session} onSignedOut={() => setAuth({ state: 'signed-out', notice: 'Signed out.' })} />;
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const page = usePage();
  const View = VIEWS[page];
  const [error, setError] = useState<string | null>(null);
  const firstPage = useRef(true);
  useEffect(() => {
    const title = PAGES.find((p) => p.path === page)?.title ?? 'Overview';
    document.title = `${title} · Switchyard`;
    // After a navigation, focus goes to the new page's heading, so keyboard and screen-reader
    // users start there (not on the first load: the browser starts at the top anyway).
    if (firstPage.current) firstPage.current = false;
    else document.querySelector<HTMLElement>('main h1')?.focus();
  }, [page]);
  // Never rejects (a failure is shown in the page), so the button does not wait for it.
  const out = async () => {
    try {
      await signOut();
      onSignedOut();
    } catch (err) {
      setError(`Sign-out failed: ${describeError(err)}`);
    }
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Switchyard</span>
        <span class="who">
          Signed in with <strong>{session.key.name}</strong> <code class="key-label">{session.key.label}</code>
        </span>
        <button type="button" onClick={() => void out()}>
          Sign out
        </button>
      </header>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <nav aria-label="Dashboard pages">
        <ul>
          {PAGES.map((p) => (
            <li key={p.path}>
              <Link to={p.path} current={p.path === page}>
                {p.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">
        <View key={page} session={session} />
      </main>
    </>
  );
}
