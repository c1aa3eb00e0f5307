/**
 * Path-based routing under /dashboard: the server answers index.html for every page path, so a
 * page can be bookmarked and reloaded. Links navigate with the History API.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where the server mounts the dashboard. */
export const BASE = '/dashboard';

/** The pages, in navigation order. */
export const PAGES = [
  { path: '/', title: 'Overview' },
  { path: '/keys', title: 'Keys' },
  { path: '/workspaces', title: 'Workspaces' },
  { path: '/usage', title: 'Usage explorer' },
  { path: '/rankings', title: 'Rankings' },
  { path: '/providers', title: 'Providers' },
] as const;

export type PagePath = (typeof PAGES)[number]['path'];

const NAVIGATED = 'dashboard:navigate';

/** The page path of the current URL ('/' for the overview and for unknown paths). */
export function currentPage(): PagePath {
  const rest = location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  return PAGES.find((p) => p.path === rest)?.path ?? '/';
}

/** The current page, updated on link clicks and on back/forward. */
export function usePage(): PagePath {
  const [page, setPage] = useState(currentPage);
  useEffect(() => {
    const update = () => setPage(currentPage());
    addEventListener('popstate', update);
    addEventListener(NAVIGATED, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(NAVIGATED, update);
    };
  }, []);
  return page;
}

function navigate(path: PagePath): void {
  history.pushState(null, '', path === '/' ? `${BASE}/` : `${BASE}${path}`);
  dispatchEvent(new Event(NAVIGATED));
}

/** A link to a page; a plain click stays in the app, a modified click opens as the browser would. */
export function Link({ to, current, children }: { to: PagePath; current: boolean; children: ComponentChildren }) {
  const href = to === '/' ? `${BASE}/` : `${BASE}${to}`;
  return (
    <a
      href={href}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
