/**
 * JSON body limits by route. The inference routes take what coding agents send (whole
 * conversations with tool results and images, up to `server.inferenceBodyLimitBytes`, as large as
 * Anthropic's and OpenAI's own limits); every other route keeps the small `server.bodyLimitBytes`.
 * Large bodies are also bounded together: each request reserves its declared length (a chunked
 * one, the whole limit) from `server.inflightBodyBytes` before its body is read, and a request that
 * does not fit while others hold the budget is a 503 with `Retry-After` instead of memory the
 * replica does not have. The reservation is released when the response is over.
 * @module
 */
import express, { type RequestHandler } from 'express';
import type { Config } from '../config';
import { ServiceUnavailableError } from '../errors';
import { keepRawJson } from './raw-json-body';

/** The inference routes (paths under the API prefix), whose bodies are agents' turns. */
export const INFERENCE_PATHS: ReadonlySet<string> = new Set([
  '/chat/completions',
  '/embeddings',
  '/messages',
  '/messages/count_tokens',
  '/responses',
]);

type Limits = Pick<Config['server'], 'bodyLimitBytes' | 'inferenceBodyLimitBytes' | 'inflightBodyBytes'>;

/** The JSON limit of a path under the API prefix. */
export function jsonLimitOf(server: Limits, path: string): number {
  return INFERENCE_PATHS.has(path) ? server.inferenceBodyLimitBytes : server.bodyLimitBytes;
}

/**
 * `express.json` with the route's limit (two parsers, chosen by path). An inference body's UTF-8
 * bytes are kept beside the parsed body (src/http/raw-json-body.ts), for the upstream body to copy
 * the members it passes on unchanged.
 */
export function jsonBodies(server: Limits): RequestHandler {
  const bytesOf = new WeakMap<object, Buffer>();
  const large = express.json({
    limit: server.inferenceBodyLimitBytes,
    strict: false,
    verify: (req, _res, bytes, encoding) => {
      if (encoding === 'utf-8' || encoding === 'utf8') bytesOf.set(req, bytes);
    },
  });
  const small = express.json({ limit: server.bodyLimitBytes, strict: false });
  return (req, res, next) => {
    if (!INFERENCE_PATHS.has(req.path)) return small(req, res, next);
    large(req, res, (err?: unknown) => {
      const bytes = bytesOf.get(req);
      if (bytes && err === undefined) keepRawJson(req.body, bytes);
      next(err);
    });
  };
}

/**
 * Reserve each inference body's bytes from the replica's budget while its request runs (see the
 * module comment); bodies up to the small limit are not counted, so management traffic and
 * ordinary chat never wait on it.
 */
export function inflightBodies(server: Limits): RequestHandler {
  let free = server.inflightBodyBytes;
  return function inflightBodyBudget(req, res, next) {
    if (!INFERENCE_PATHS.has(req.path)) return next();
    const declared = Number(req.headers['content-length']);
    const size = Number.isFinite(declared) ? declared : server.inferenceBodyLimitBytes;
    if (size <= server.bodyLimitBytes) return next();
    if (size > free)
      return next(
        new ServiceUnavailableError(
          { reason: 'the replica is reading as many large request bodies as it holds; retry shortly' },
          1,
        ),
      );
    free -= size;
    res.once('close', () => (free += size));
    next();
  };
}
