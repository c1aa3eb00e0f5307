/**
 * The API's route templates as a matcher, so a request can be labelled with its template
 * *before* authentication and rate limiting: a 401 or 429 on `/api/v1/keys/:hash` is then
 * counted under that template instead of `unmatched`. Only registered templates are ever
 * returned, so metric labels stay bounded; anything else stays `unmatched`.
 *
 * Matching follows Express 5's defaults for the same templates (case-insensitive, optional
 * trailing slash, a `:param` is one non-empty segment, GET routes also answer HEAD). Only
 * literal segments and `:name` parameters are supported; anything else is refused at boot
 * rather than matched differently from the router.
 * @module
 */

interface Entry {
  method: string;
  pattern: RegExp;
  template: string;
}

const LITERAL_SEGMENT = /^[A-Za-z0-9._~-]+$/;
const PARAM_SEGMENT = /^:[A-Za-z_][A-Za-z0-9_]*$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compile `/keys/:hash` to a RegExp over the mounted path (`req.path`). */
function compile(path: string): RegExp {
  const segments = path.split('/').slice(1);
  const parts = segments.map((segment) => {
    if (PARAM_SEGMENT.test(segment)) return '[^/]+';
    if (LITERAL_SEGMENT.test(segment)) return escapeRegExp(segment);
    throw new Error(`route template "${path}": only literal segments and :params are supported`);
  });
  return new RegExp(`^/${parts.join('/')}/?$`, 'i');
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
    if (!path.startsWith('/')) throw new Error(`route template "${path}" must start with /`);
    this.entries.push({ method: method.toUpperCase(), pattern: compile(path), template });
  }

  /** The template of the route `method path` would reach, or undefined. */
  match(method: string, path: string): string | undefined {
    const m = method === 'HEAD' ? 'GET' : method;
    for (const e of this.entries) {
      if (e.method === m && e.pattern.test(path)) return e.template;
    }
    return undefined;
  }
}
