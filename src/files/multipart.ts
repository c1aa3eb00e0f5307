/**
 * Reads a `multipart/form-data` upload with busboy and hands its one file part, as a stream, to
 * a consumer: nothing is buffered here beyond busboy's own small window. busboy is the parser
 * Multer and Fastify build on: streaming, backpressure-aware, with per-part limits, and
 * CommonJS, so it loads under our build and tests.
 *
 * The form is valid only with exactly one file part named `file` (other text fields are
 * ignored). The consumer gets `formComplete`, which settles once the whole body is parsed, so it
 * can refuse to commit while the rest of the form may still prove invalid (a second file).
 * @module
 */
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { PayloadTooLargeError, RequestTimeoutError, ValidationError, type GatewayError } from '../errors';

/** The file part of an upload, as the consumer receives it. */
export interface IncomingFile {
  /** The client's file name, path stripped; only a label, never used to find storage. */
  filename: string;
  /** The part's bytes; at most `maxBytes + 1` of them are ever delivered. */
  stream: Readable;
  /** Resolves when the whole form has been parsed and is valid; rejects with the 4xx otherwise. */
  formComplete: Promise<void>;
}

/** Limits of one upload. */
export interface UploadLimits {
  /** Largest accepted file; the part is cut after `maxBytes + 1` bytes so the consumer sees the excess. */
  maxBytes: number;
  /** Bytes of an abandoned body read and thrown away after an error, before the connection is cut. */
  drainBytes?: number;
  /** An upload that sends nothing for this long fails with 408 (its connection is closed after the answer). */
  idleTimeoutMs?: number;
  /** An upload not complete within this fails with 408, however steadily it sends. */
  deadlineMs?: number;
}

/** Room for boundaries, part headers and small fields beyond the file itself (also the early 413 check, see http/early-refusals.ts). */
export const FORM_OVERHEAD_BYTES = 1024 * 1024;
const DEFAULT_DRAIN_BYTES = 16 * 1024 * 1024;

const badForm = (message: string) => new ValidationError([{ path: 'body', message }]);

/**
 * Stop reading an abandoned upload without resetting the connection under the client: keep
 * discarding what it still sends (so it gets to read our error response), up to a bound after
 * which the socket is closed.
 */
export function discardBody(req: Request, limitBytes = DEFAULT_DRAIN_BYTES): void {
  let seen = 0;
  req.on('data', (data: Buffer) => {
    seen += data.length;
    if (seen > limitBytes) req.socket.destroy();
  });
  req.resume();
}

/**
 * Parse the upload in `req` and pass its file part to `consume`, whose result is returned.
 * Errors of the form (not multipart, no or several file parts, malformed body, declared length
 * far over the limit) reject with a 4xx `GatewayError`; errors of `consume` are passed through.
 * In every failure the rest of the body is discarded, so the client still reads the response.
 */
export function receiveFile<T>(
  req: Request,
  limits: UploadLimits,
  consume: (file: IncomingFile) => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const drain = () => discardBody(req, limits.drainBytes);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes + FORM_OVERHEAD_BYTES) {
      drain();
      reject(new PayloadTooLargeError(limits.maxBytes));
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // Browsers, Node's FormData and curl send a non-ASCII file name as raw UTF-8 in
        // `filename="…"`; busboy would decode it as latin1 (its default) and garble it.
        // (An RFC 5987 `filename*=UTF-8''…` parameter is decoded by its own charset either way.)
        defParamCharset: 'utf8',
        limits: {
          files: 1,
          fileSize: limits.maxBytes + 1,
          fields: 32,
          fieldSize: 64 * 1024,
          parts: 40,
          headerPairs: 64,
        },
      });
    } catch {
      drain();
      reject(badForm('must be multipart/form-data with a part named "file"'));
      return;
    }

    let formError: GatewayError | undefined;
    let consuming: Promise<T> | undefined;
    let settleForm!: { resolve: () => void; reject: (err: GatewayError) => void };
    const formComplete = new Promise<void>((res, rej) => (settleForm = { resolve: res, reject: rej }));
    formComplete.catch(() => undefined); // observed through `consume` or `fail`

    let detached = false;
    let timedOut = false;
    const detach = () => {
      if (detached) return;
      detached = true;
      clearTimers();
      req.unpipe(parser);
      // A client too slow to finish is not read any further: its connection closes after the 408.
      if (timedOut) req.res?.once('finish', () => req.socket.destroy());
      else drain();
      parser.destroy();
    };
    const fail = (err: GatewayError) => {
      if (formError) return;
      formError = err;
      settleForm.reject(err);
      detach();
      if (!consuming) reject(err);
    };

    // Slow clients: nothing sent for idleTimeoutMs, or not done by deadlineMs → 408, slot freed.
    // Only the client's slowness counts: once its whole body is in (the database is what is slow),
    // or while bytes it sent wait unread (backpressure), the timer is only re-armed.
    const timeout = (limit: 'idle' | 'deadline', ms: number) =>
      function onTimeout(this: NodeJS.Timeout) {
        if (req.complete) return;
        if (req.readableLength > 0) return void this.refresh();
        timedOut = true;
        fail(
          new RequestTimeoutError({
            reason:
              limit === 'idle' ? `the upload sent nothing for ${ms} ms` : `the upload did not complete within ${ms} ms`,
            limit_ms: ms,
          }),
        );
      };
    const deadline = limits.deadlineMs
      ? setTimeout(timeout('deadline', limits.deadlineMs), limits.deadlineMs)
      : undefined;
    let idle = limits.idleTimeoutMs
      ? setTimeout(timeout('idle', limits.idleTimeoutMs), limits.idleTimeoutMs)
      : undefined;
    const onData = () => idle?.refresh();
    const clearTimers = () => {
      clearTimeout(deadline);
      clearTimeout(idle);
      idle = undefined;
      req.off('data', onData);
    };
    if (idle) req.on('data', onData);

    parser.on('file', (name, stream, info) => {
      // Errors of a part reach the consumer through its iteration; a part nobody reads (or one
      // destroyed after the consumer stopped) must not raise an unhandled 'error'.
      stream.on('error', () => undefined);
      if (formError) return void stream.resume();
      if (name !== 'file') {
        stream.resume();
        return fail(badForm(`unexpected file part "${name}"; send the file in a part named "file"`));
      }
      consuming = consume({ filename: info.filename ?? '', stream, formComplete });
      consuming.then(resolve, (err: unknown) => {
        if (!formError) detach();
        // A broken form also breaks the file stream: report the form's 4xx, not the stream error.
        reject(formError ?? err);
      });
    });
    parser.on('filesLimit', () => fail(badForm('exactly one file may be sent per upload')));
    parser.on('partsLimit', () => fail(badForm('too many parts in the form')));
    parser.on('fieldsLimit', () => fail(badForm('too many fields in the form')));
    parser.on('error', (err: Error) => fail(badForm(`malformed multipart body: ${err.message}`)));
    parser.on('close', () => {
      clearTimers();
      if (formError) return;
      if (!consuming) fail(badForm('a file part named "file" is required'));
      else settleForm.resolve();
    });
    // A request that ends before the parser saw all of it (the client disconnects, or the HTTP
    // parser cuts the connection over junk after the body) fails the parser, which fails the file
    // stream and so the consumer. One destroyed before we got here (while the caller awaited the
    // database) has already emitted its events; `complete` does not help there: a body received
    // whole but not yet read is lost with the connection all the same. Without this the parser
    // would wait for bytes that never come, and the upload would never end.
    const aborted = () => {
      if (!req.readableEnded) parser.destroy(new Error('request aborted'));
    };
    req.on('error', (err) => parser.destroy(err));
    req.on('close', aborted);
    // The exchange is over while the body is still being read: the server's parser refused the
    // rest of the body and answered 400 itself (a body cut short by a half-closed connection, a bad
    // chunk), or the connection is gone. The request then gets no event of its own, and no more
    // bytes ever come: fail now, so the slot and the spool file are given back at once, not when
    // the idle timer fires.
    req.res?.once('close', () => {
      if (!parser.destroyed) parser.destroy(new Error('the request ended before its body was complete'));
    });
    req.pipe(parser);
    if (req.destroyed) aborted();
  });
}
