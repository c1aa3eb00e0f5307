/**
 * One pipeline: a middleware added to the app's list runs on every API route alike (embeddings,
 * management, files), after authentication and before the route; and the embeddings route's
 * budget step is its own middleware, so a refusal never reaches the upstream.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app';
import { PaymentRequiredError } from '../../src/errors';
import { bearer } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { switchable } from '../helpers/switchable';
import type { SpendGuard } from '../../src/budgets/types';

let h: GatewayHarness;
/** The spend guard a test replaces for a while: the gateway is built over this stand-in. */
const spend = switchable<SpendGuard>();
beforeAll(async () => {
  h = await startGatewayHarness({ wrap: { spend: spend.wrap } });
});
afterAll(() => h.close());

test('a middleware added to the list runs on embeddings, management and file routes, after auth', async () => {
  const seen: Array<{ route: string; key: string | undefined }> = [];
  const audit = function audit(req: Request, _res: Response, next: NextFunction) {
    seen.push({ route: `${req.method} ${req.ctx.route}`, key: req.ctx.key?.hash });
    next();
  };
  const app = createApp(h.gw.deps, { use: [audit] });

  await request(app)
    .post('/api/v1/embeddings')
    .set('Authorization', bearer(h.key))
    .send({ model: 'openai/text-embedding-3-small', input: 'hi' })
    .expect(200);
  await request(app).get('/api/v1/keys').set('Authorization', bearer(h.gw.mgmtKey)).expect(200);
  await request(app).get('/api/v1/files').set('Authorization', bearer(h.gw.mgmtKey)).expect(200);
  // Refused by auth: the added middleware never sees an unauthenticated request.
  await request(app).get('/api/v1/keys').expect(401);

  expect(seen.map((s) => s.route)).toEqual(['POST /api/v1/embeddings', 'GET /api/v1/keys', 'GET /api/v1/files']);
  for (const s of seen) expect(s.key).toMatch(/^[0-9a-f]{64}$/);
});

test('a middleware that answers stops the request before any route, embeddings included', async () => {
  const deny = function ipAllowList(_req: Request, res: Response) {
    res.status(403).json({ error: { code: 403, message: 'Forbidden by allow-list' } });
  };
  const app = createApp(h.gw.deps, { use: [deny] });
  const before = h.events.length;
  const res = await request(app)
    .post('/api/v1/embeddings')
    .set('Authorization', bearer(h.key))
    .send({ model: 'openai/text-embedding-3-small', input: 'hi' });
  expect(res.status).toBe(403);
  expect(h.events.length).toBe(before);
});

test('the budget step refuses before the upstream is called, and the refusal is the 402 envelope', async () => {
  const upstreamCalls = () => Object.values(h.fleet.fakes).reduce((n, f) => n + f.calls.length, 0);
  const calledBefore = upstreamCalls();
  spend.use({ reserve: async () => Promise.reject(new PaymentRequiredError()) });
  try {
    const res = await h.post({ model: 'openai/text-embedding-3-small', input: 'hi' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe(402);
    expect(upstreamCalls()).toBe(calledBefore);
  } finally {
    spend.use(undefined);
  }
});

test('the app is a plain Express application: it mounts inside another one unchanged', async () => {
  const outer = express();
  outer.use(createApp(h.gw.deps));
  const res = await request(outer)
    .post('/api/v1/embeddings')
    .set('Authorization', bearer(h.key))
    .send({ model: 'openai/text-embedding-3-small', input: 'hi' });
  expect(res.status).toBe(200);
  expect(res.body.object).toBe('list');
});
