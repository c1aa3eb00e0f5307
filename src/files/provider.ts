/**
 * The `provider` query parameter of the hosted files routes (`openai` | `anthropic`) makes the
 * hosted service work on that provider's own Files API with the caller's BYOK key. Switchyard
 * has no BYOK keys and keeps files only in its own storage, so any `provider` is refused with a
 * 400 that says so, rather than silently answering with (or deleting!) our own files.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../errors';
import { validated } from '../http/validate';

/** Middleware after query validation: 400 when the request names a provider's file storage. */
export function refuseProviderFiles(req: Request, _res: Response, next: NextFunction): void {
  // Both file queries (files.scope.query, files.list.query) declare `provider` alike.
  const { provider } = validated(req, 'files.scope.query');
  if (provider !== undefined) {
    throw new ValidationError(
      [{ path: 'query.provider', message: "is not supported: files are kept in this gateway's own storage" }],
      "Provider files (provider=openai|anthropic, with a BYOK key) are not supported; omit provider to use this gateway's file storage",
    );
  }
  next();
}
