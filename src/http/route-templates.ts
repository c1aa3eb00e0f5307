/**
 * The one route matcher beside Express's router, on the router's own path-to-regexp with the
 * router's defaults (case-insensitive, an optional trailing slash, the whole path): whatever the
 * gateway decides about a path before or outside the router (the route label of a request not yet
 * routed, the health probes, the management-only prefixes, the passthrough routes' body limit)
 * matches exactly what the router would.
 *
 * {@link RouteTemplates} labels a request with its template *before* authentication and rate
 * limiting, so a 401 or 429 on `/api/v1/keys/:hash` is counted under that template instead of
 * `unmatched`. Only registered templates are ever returned, so metric labels stay bounded.
 * @module
 */
import { match } from 'path-to-regexp';

/** A test of a path (`req.path`, no query) against one template, as Express's router matches it. */
export type PathTest = (path: string) => boolean;

/**
 * Compile `template` (`/keys/:hash`, `/keys{/*rest}`) with Express's defaults.
 * @throws TypeError at boot for a template path-to-regexp cannot parse
 */
export function pathMatcher(template: string): PathTest {
  const test = match(template, { decode: false });
  return (path) => test(path) !== false;
}

/** A test of a path against several templates: true when any matches. */
export function anyPath(templates: readonly string[]): PathTest {
  const tests = templates.map(pathMatcher);
  return (path) => tests.some((test) => test(path));
}

interface Entry {
  method: string;
  test: PathTest;
  template: string;
}

/** Registered (method, template) pairs, matched in registration order like the router. */
export class RouteTemplates {
  private readonly entries: Entry[] = [];

  /**
   * @param method - lower-case Express method name (`get`, `post`, …)
   * @param path - the path as registered on the router, e.g. `/keys/:hash`
   * @param template - the label, e.g. `/api/v1/keys/:hash`
   */
  add(method: string, path: string, template: string): void {
    this.entries.push({ method: method.toUpperCase(), test: pathMatcher(path), template });
  }

  /** The template of the route `method path` would reach, or undefined. GET routes also answer HEAD. */
  match(method: string, path: string): string | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    for (const e of this.entries) {
      if (e.method === m && e.test(path)) return e.template;
    }
    return undefined;
  }
}
