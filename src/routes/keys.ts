/**
 * `/keys` (management) and `/key` (any key): thin handlers over {@link KeyService}.
 * `POST /keys/{hash}/rotate` is this gateway's own: a management key replaced by a new secret.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireManagementKey } from '../auth/authenticate';
import { pathNamesResource, validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { toCurrentKeyWire, toWireKey } from '../keys/wire';

/** Register the key routes. */
export function registerKeyRoutes(api: ApiRouter, deps: AppDeps): void {
  const { keys, usage, config } = deps;
  const mgmt = requireManagementKey();
  // A malformed hash names no key: 404, like an unknown one.
  const byHash = pathNamesResource('keys.hash.params');
  const hashOf = (req: Request) => validated(req, 'keys.hash.params').hash;

  api.add(
    'post',
    '/keys',
    mgmt,
    validate({ body: 'keys.create.body' }),
    async function createKey(req: Request, res: Response) {
      const { record, secret } = await keys.create(currentKey(req).orgId, validated(req, 'keys.create.body'));
      res.status(201).json({ data: toWireKey(record, await usage(record)), key: secret });
    },
  );

  api.add(
    'get',
    '/keys',
    mgmt,
    validate({ query: 'keys.list.query' }),
    async function listKeys(req: Request, res: Response) {
      const records = await keys.list(currentKey(req).orgId, validated(req, 'keys.list.query'));
      res.json({ data: await Promise.all(records.map(async (k) => toWireKey(k, await usage(k)))) });
    },
  );

  api.add('get', '/keys/:hash', mgmt, byHash, async function getKey(req: Request, res: Response) {
    const record = await keys.get(currentKey(req).orgId, hashOf(req));
    res.json({ data: toWireKey(record, await usage(record)) });
  });

  api.add(
    'patch',
    '/keys/:hash',
    mgmt,
    byHash,
    validate({ body: 'keys.update.body' }),
    async function updateKey(req: Request, res: Response) {
      const record = await keys.update(currentKey(req).orgId, hashOf(req), validated(req, 'keys.update.body'));
      res.json({ data: toWireKey(record, await usage(record)) });
    },
  );

  api.add('delete', '/keys/:hash', mgmt, byHash, async function deleteKey(req: Request, res: Response) {
    await keys.delete(currentKey(req).orgId, hashOf(req));
    res.json({ deleted: true });
  });

  api.add('post', '/keys/:hash/rotate', mgmt, byHash, async function rotateKey(req: Request, res: Response) {
    const { record, secret, old } = await keys.rotate(currentKey(req).orgId, hashOf(req));
    res.status(201).json({ data: toWireKey(record, await usage(record)), key: secret, revoked: old.hash });
  });

  api.add('get', '/key', async function getCurrentKey(req: Request, res: Response) {
    const key = currentKey(req);
    const rl = { limit: config.rateLimit.limit, windowMs: config.rateLimit.windowMs };
    res.json({ data: toCurrentKeyWire(key, await usage(key), rl) });
  });
}
