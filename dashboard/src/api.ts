/**
 * The one way the dashboard talks to the gateway: same-origin fetch with the session cookie,
 * the CSRF token on every state-changing call, and the gateway's `{error:{code,message}}`
 * envelope turned into an {@link ApiError}. A 401 from the API means the session ended, so
 * listeners are told and the app shows the sign-in form again.
 */

/** A failed call: the HTTP status (0 when the gateway could not be reached) and its message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The session the server hands out on sign-in (and on `GET /dashboard/api/session`). */
import type { Session } from '../../src/wire/types';

export type { Session };

const SESSION_PATH = '/dashboard/api/session';
let csrfToken: string | null = null;
const endedListeners = new Set<() => void>();

/** Call `listener` whenever an API call answers 401 (the session expired or was signed out). */
export function onSessionEnded(listener: () => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Envelope {
  error?: { code?: number; message?: string; metadata?: Record<string, unknown> };
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Send one request and return its JSON body.
 * @throws ApiError - for a non-2xx answer (with the server's message) or a network failure
 */
export async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The gateway could not be reached. Check your connection and try again.');
  }
  const json = await readJson(res);
  if (res.ok) return json as T;
  const error = (json as Envelope | null)?.error;
  if (res.status === 401 && !path.startsWith(SESSION_PATH)) {
    csrfToken = null;
    for (const listener of endedListeners) listener();
  }
  throw new ApiError(res.status, error?.message ?? `The request failed (HTTP ${res.status}).`, error?.metadata ?? {});
}

/** GET shorthand. */
export const get = <T>(path: string) => request<T>('GET', path);

/** Exchange a management key for a session cookie; the key is not kept anywhere. */
export async function signIn(key: string): Promise<Session> {
  const { data } = await request<{ data: Session }>('POST', SESSION_PATH, { key });
  csrfToken = data.csrf_token;
  return data;
}

/** The current session, or null when signed out (401). */
export async function currentSession(): Promise<Session | null> {
  try {
    const { data } = await request<{ data: Session }>('GET', SESSION_PATH);
    csrfToken = data.csrf_token;
    return data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

/** End the session on the server (the cookie is cleared there). */
export async function signOut(): Promise<void> {
  try {
    await request('DELETE', SESSION_PATH);
  } finally {
    csrfToken = null;
  }
}

/**
 * The message for one field of a 400 (`metadata.errors[].path` ending in `field`), with the
 * server's `detail` (which explains rule violations such as the budget ordering) when present.
 */
export function fieldError(err: unknown, field: string): string | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const issues = Array.isArray(err.metadata.errors)
    ? (err.metadata.errors as Array<{ path?: string; message?: string }>)
    : [];
  const issue = issues.find((i) => typeof i.path === 'string' && (i.path === field || i.path.endsWith(`.${field}`)));
  if (!issue) return null;
  const detail = typeof err.metadata.detail === 'string' ? err.metadata.detail : null;
  return detail ?? `${field} ${issue.message ?? 'is invalid'}`;
}

/** A plain sentence for any failure, for the page's error message. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const detail = typeof err.metadata.detail === 'string' ? `: ${err.metadata.detail}` : '';
    return `${err.message}${detail}`;
  }
  return err instanceof Error ? err.message : String(err);
}
