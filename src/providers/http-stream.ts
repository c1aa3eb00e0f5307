/**
 * A streamed upstream call (chat with `stream: true`): the status is classified as soon as the
 * upstream answers, and a 2xx body is handed on chunk by chunk as it arrives, never gathered. The
 * consumer can pause the upstream (a slow client) and abort it (a client that left), so that no
 * upstream money is spent on nobody.
 * @module
 */
import type { Dispatcher } from 'undici';
import { classifyStatus, retryAfter, type UpstreamFailure } from './http';
import type { UpstreamRequest } from './types';

/** Where an open stream's body goes. */
export interface StreamSink {
  data(chunk: Buffer): void;
  /** The body ended (`failure` null) or broke off (a short, secret-free reason). */
  end(failure: string | null): void;
}

/** A 2xx upstream stream whose body is flowing. */
export interface OpenStream {
  status: number;
  /** Attach the consumer; chunks that arrived before are delivered at once, in order. */
  attach(sink: StreamSink): void;
  pause(): void;
  resume(): void;
  /** Stop the upstream call (closes its connection); the sink hears nothing more. */
  abort(): void;
}

/** How opening a stream ended: the flowing stream, or the failure (as for a whole answer). */
export type StreamOpening = { outcome: 'ok'; stream: OpenStream } | UpstreamFailure;

/** The most of an error body read to classify it (it is never passed on). */
const MAX_ERROR_BODY = 64 * 1024;

/**
 * POST `req` on `dispatcher` and resolve once the upstream has answered: with the open stream on
 * a 2xx, else with the classified failure. Resolves (never rejects) within about `timeoutMs`.
 */
export function openStream(
  dispatcher: Dispatcher,
  target: { origin: string; path: string },
  req: UpstreamRequest,
  isOverloaded: ((status: number, text: string) => boolean) | undefined,
  timeoutMs: number,
): Promise<StreamOpening> {
  return new Promise<StreamOpening>((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let retryAfterHeader: string | string[] | undefined;
    let opened = false;
    let settled = false;
    let sink: StreamSink | null = null;
    let ended: string | null | undefined;
    const early: Buffer[] = [];
    const errorBody: Buffer[] = [];
    let errorSize = 0;
    let aborted = false;
    const settle = (result: StreamOpening): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const abort = (reason: string): void => {
      aborted = true;
      controller?.abort(new Error(reason));
    };
    const timer = setTimeout(() => {
      settle({ outcome: 'timeout', status: null, reason: `no answer within ${timeoutMs} ms` });
      abort('upstream attempt timed out');
    }, Math.max(1, Math.ceil(timeoutMs)));
    const stream: OpenStream = {
      get status() {
        return status;
      },
      attach(s) {
        sink = s;
        for (const chunk of early.splice(0)) s.data(chunk);
        if (ended !== undefined) s.end(ended);
      },
      pause: () => controller?.pause(),
      resume: () => controller?.resume(),
      abort: () => {
        sink = null;
        abort('client left');
      },
    };
    const finishBody = (failure: string | null): void => {
      if (aborted && sink === null) return;
      if (sink) sink.end(failure);
      else ended = failure;
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (aborted) c.abort(new Error('upstream attempt timed out'));
      },
      onResponseStart(_c, statusCode, headers) {
        status = statusCode;
        retryAfterHeader = headers['retry-after'];
        if (statusCode >= 200 && statusCode < 300) {
          opened = true;
          settle({ outcome: 'ok', stream });
        }
      },
      onResponseData(_c, chunk) {
        if (!opened) {
          if (errorSize < MAX_ERROR_BODY) errorBody.push(chunk);
          errorSize += chunk.length;
          return;
        }
        if (sink) sink.data(chunk);
        else if (!aborted) early.push(chunk);
      },
      onResponseEnd() {
        if (opened) return finishBody(null);
        const text = Buffer.concat(errorBody).toString('utf8');
        settle(classifyStatus(status, text, retryAfter(retryAfterHeader), { isOverloaded }));
      },
      onResponseError(_c, err) {
        const reason = (err as { code?: string }).code ?? 'connection failed';
        if (opened) return finishBody(reason);
        settle({ outcome: 'network', status: null, reason });
      },
    };
    try {
      dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: req.headers, body: req.body }, handler);
    } catch (err) {
      settle({ outcome: 'network', status: null, reason: (err as { code?: string }).code ?? 'connection failed' });
    }
  });
}
