/**
 * Dashboard sessions. Signing in exchanges a management key for a session: a random id in a
 * signed, HttpOnly cookie, and a record in the shared store naming the key by its hash (never the
 * secret) with a CSRF token. The record lives in Redis (or the in-process store), so every replica
 * honours it and signing out ends it everywhere, not only in the browser that held the cookie.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieOptions, NextFunction, Request, RequestHandler, Response } from 'express';
import cookieParser from 'cookie-parser';
import { ForbiddenError, ServiceUnavailableError } from '../errors';
import type { Kv } from '../kv/kv';
import type { ApiKeyRecord } from '../keys/types';
import { SECRET_SHARE, SESSION_CLOSE, SESSION_OPEN, SESSION_READ } from './session-scripts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'switchyard_session';
/** The header every state-changing call made with the session cookie must carry. */
export const CSRF_HEADER = 'x-csrf-token';
/** Methods that change nothing, so a session call needs no CSRF token for them. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The refusal of a state-changing session call without the session's CSRF token. */
export function csrfRefusal(): ForbiddenError {
  return new ForbiddenError('Missing or invalid CSRF token: send the X-CSRF-Token header the dashboard session gave');
}

/**
 * What a session holds: the key it was opened with (by hash, and the key's session generation
 * then), its CSRF token, when it ends.
 */
export interface SessionRecord {
  keyHash: string;
  /** Absent in sessions opened before generations existed: those count as generation 0. */
  keyGeneration?: number;
  csrf: string;
  expiresAt: number;
}

/** A live session and the key it stands for. */
export interface LiveSession {
  record: SessionRecord;
  key: ApiKeyRecord;
}

const SECRET_KEY = 'dashboard:secret';
const sessionKey = (id: string) => `dashboard:session:${id}`;
const token = () => randomBytes(32).toString('base64url');

/** Options for {@link DashboardSessions}. */
export interface SessionOptions {
  /** The operator's secret; null → one shared through the store. */
  secret: string | null;
  ttlMs: number;
  clock: () => number;
}

/** Opens, reads and closes dashboard sessions, and parses their cookie. */
export class DashboardSessions {
  /**
   * cookie-parser with the signing secret: fills `req.signedCookies` (a forged cookie reads as
   * false). The secret is resolved on first use, so a replica starting while Redis is down starts.
   */
  readonly cookies: RequestHandler;
  /** {@link cookies} for the API: a request with a bearer key is authenticated by it, so its cookies are not read. */
  readonly cookiesWithoutBearer: RequestHandler;
  private parser: Promise<RequestHandler> | null = null;

  constructor(
    private readonly kv: Kv,
    private readonly options: SessionOptions,
  ) {
    const parse = (req: Request, res: Response, next: NextFunction) => {
      this.parserNow().then((parser) => parser(req, res, next), next);
    };
    this.cookies = parse;
    this.cookiesWithoutBearer = function sessionCookies(req: Request, res: Response, next: NextFunction) {
      if (req.headers.authorization) next();
      else parse(req, res, next);
    };
  }

  /** The cookie parser over the operator's secret, or the one the replicas share (created by the first to ask). */
  private parserNow(): Promise<RequestHandler> {
    if (!this.parser) {
      this.parser = this.store(async () =>
        cookieParser(this.options.secret ?? (await this.kv.run(SECRET_SHARE, [SECRET_KEY], [token()]))),
      );
      // A failure is not remembered: the next request asks the store again.
      this.parser.catch(() => (this.parser = null));
    }
    return this.parser;
  }

  /** Run a store operation; the store being unreachable is a 503, never a 500. */
  private async store<R>(op: () => Promise<R>): Promise<R> {
    try {
      return await op();
    } catch (err) {
      throw new ServiceUnavailableError({ reason: 'session_store_unavailable' }, 1, undefined, err);
    }
  }

  /** Open a session for `key`. */
  async create(key: Pick<ApiKeyRecord, 'hash' | 'sessionGeneration'>): Promise<{ id: string; record: SessionRecord }> {
    const id = token();
    const record: SessionRecord = {
      keyHash: key.hash,
      keyGeneration: key.sessionGeneration,
      csrf: token(),
      expiresAt: this.options.clock() + this.options.ttlMs,
    };
    await this.store(() => this.kv.run(SESSION_OPEN, [sessionKey(id)], [JSON.stringify(record), this.options.ttlMs]));
    return { id, record };
  }

  /** The session with this id, or null when it ended (signed out, expired, or never existed). */
  async read(id: string): Promise<SessionRecord | null> {
    const json = await this.store(() => this.kv.run(SESSION_READ, [sessionKey(id)], []));
    if (json === null) return null;
    const record = JSON.parse(json) as SessionRecord;
    return record.expiresAt > this.options.clock() ? record : null;
  }

  /**
   * The session `id` with its key, or null when it ended: signed out, expired, or its key deleted
   * or disabled since it was opened (the key's session generation moved on). Such a session's
   * record is deleted then, so a key re-enabled later does not bring it back.
   * @param lookup - the key by hash (the key cache)
   */
  async live(id: string, lookup: (hash: string) => Promise<ApiKeyRecord | null>): Promise<LiveSession | null> {
    const record = await this.read(id);
    if (!record) return null;
    const key = await lookup(record.keyHash);
    if (key && key.sessionGeneration === (record.keyGeneration ?? 0)) return { record, key };
    await this.close(id);
    return null;
  }

  /** End the session `id` on every replica. */
  async close(id: string): Promise<void> {
    await this.store(() => this.kv.run(SESSION_CLOSE, [sessionKey(id)], []));
  }

  /** The verified session id from a request's cookie (after {@link cookies} ran), or null. */
  idOf(req: Request): string | null {
    const value: unknown = (req.signedCookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE];
    return typeof value === 'string' && value.length > 0 ? value : null;
  }

  /** Whether `req` changes state without the session's CSRF token (compared in constant time). */
  csrfRefused(req: Request, record: SessionRecord): boolean {
    if (SAFE_METHODS.has(req.method)) return false;
    const sent = req.get(CSRF_HEADER);
    if (!sent) return true;
    const a = Buffer.from(sent);
    const b = Buffer.from(record.csrf);
    return a.length !== b.length || !timingSafeEqual(a, b);
  }

  /** Set the session cookie: signed, HttpOnly, SameSite=Strict, Secure when the request came over TLS. */
  setCookie(req: Request, res: Response, id: string): void {
    res.cookie(SESSION_COOKIE, id, { ...this.cookieOptions(req), signed: true, maxAge: this.options.ttlMs });
  }

  /** Remove the session cookie from the browser. */
  clearCookie(req: Request, res: Response): void {
    res.clearCookie(SESSION_COOKIE, this.cookieOptions(req));
  }

  private cookieOptions(req: Request): CookieOptions {
    return { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/' };
  }
}
