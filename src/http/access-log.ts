/**
 * One access log line and the request metrics per request, recorded when the response is
 * finished (or the client went away). The line is built from an allow-list of fields: no
 * headers, no bodies, no query string, so the Authorization header can never be logged. With tracing on, the line
 * carries the request's `trace_id` and `span_id`, so a log line leads to its trace. Below `info`
 * (`LOG_LEVEL=warn`) no line is built at all: winston formats a line before its transport drops
 * it by level, so the level is checked here.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../observability/logger';
import { statusClass, type Metrics } from '../observability/metrics';
import { traceIds } from '../observability/spans';

/** Longest request path logged; a longer one is cut (a client can send a URL of many kilobytes). */
export const MAX_LOGGED_PATH = 200;

/**
 * The request's path as logged: never the query string (it may carry a client's secrets or
 * personal data), cut to {@link MAX_LOGGED_PATH} characters. `originalUrl`, because routers
 * rewrite `url` while the request passes through them.
 */
export function loggedPath(originalUrl: string): string {
  const path = originalUrl.split('?', 1)[0] as string;
  return path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
}

/** Build the access-log + request-metrics middleware. */
export function accessLog(logger: Logger, metrics: Metrics) {
  return function accessLogMiddleware(req: Request, res: Response, next: NextFunction): void {
    let done = false;
    const record = (): void => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - req.ctx.startedAt) / 1e9;
      const labels = { route: req.ctx.route, method: req.method, status_class: statusClass(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      if (!logger.isInfoEnabled()) return;
      const fields: Record<string, unknown> = {
        request_id: req.ctx.requestId,
        method: req.method,
        route: req.ctx.route,
        // The route template says which route; the path says which resource, or what was asked for when no route matched.
        path: loggedPath(req.originalUrl),
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        workspace_id: req.ctx.key?.workspaceId,
        aborted: !res.writableFinished,
      };
      // Added only with tracing on: the line of an untraced request keeps its shape and cost.
      if (req.ctx.trace) Object.assign(fields, traceIds(req.ctx.trace));
      logger.info('request', fields);
    };
    res.on('finish', record);
    res.on('close', record);
    next();
  };
}
