/**
 * serveHotRoute: the exact route runs its chain on the plain Node request (no Express
 * prototypes), everything else — other methods, other paths, the variants Express would also
 * match — still goes through Express, and a chain's errors reach the given error handler.
 */
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import request from 'supertest';
import { serveHotRoute } from '../../src/http/hot-route';
import { GatewayError } from '../../src/errors';

function appWithHotRoute(chain: RequestHandler) {
  const app = express();
  const seen: string[] = [];
  app.post('/hot', (req: Request, res: Response) => {
    seen.push(`express ${req.originalUrl}`);
    res.json({ via: 'express' });
  });
  const onError: ErrorRequestHandler = (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = err instanceof GatewayError ? err.status : 500;
    res.statusCode = status;
    res.end(JSON.stringify({ error: { code: status, message: (err as Error).message } }));
  };
  serveHotRoute(app, { method: 'POST', path: '/hot', chain, onError });
  return { app, seen };
}

const lane: RequestHandler = (req: Request, res: Response) => {
  // Express's request prototype adds `get`; the plain IncomingMessage has none.
  res.end(JSON.stringify({ via: 'lane', expressRequest: typeof (req as { get?: unknown }).get === 'function', url: req.url }));
};

test('the exact path (with or without a query) is served by the chain, outside Express', async () => {
  const { app, seen } = appWithHotRoute(lane);
  const plain = await request(app).post('/hot').send({});
  expect(JSON.parse(plain.text)).toEqual({ via: 'lane', expressRequest: false, url: '/hot' });
  const query = await request(app).post('/hot?a=1').send({});
  expect(JSON.parse(query.text)).toMatchObject({ via: 'lane', url: '/hot?a=1' });
  expect(seen).toEqual([]);
});

test('other methods and path variants go to Express', async () => {
  const { app, seen } = appWithHotRoute(lane);
  expect((await request(app).post('/hot/').send({})).body).toEqual({ via: 'express' });
  expect((await request(app).post('/HOT').send({})).body).toEqual({ via: 'express' });
  expect((await request(app).post('/hotter').send({})).status).toBe(404);
  expect((await request(app).get('/hot')).status).toBe(404);
  expect(seen).toEqual(['express /hot/', 'express /HOT']);
});

test('an error from the chain, thrown or rejected, reaches the error handler', async () => {
  const thrown = appWithHotRoute(() => {
    throw new GatewayError(418, 'short and stout');
  });
  const a = await request(thrown.app).post('/hot').send({});
  expect(a.status).toBe(418);
  expect(JSON.parse(a.text)).toEqual({ error: { code: 418, message: 'short and stout' } });
  const rejected = appWithHotRoute((_req, _res, next) => next(new GatewayError(409, 'taken')));
  expect((await request(rejected.app).post('/hot').send({})).status).toBe(409);
});

test('a chain that ends without answering is a 404', async () => {
  const { app } = appWithHotRoute((_req, _res, next) => next());
  const res = await request(app).post('/hot').send({});
  expect(res.status).toBe(404);
});

test('works when the app is mounted inside another app', async () => {
  const { app } = appWithHotRoute(lane);
  const outer = express();
  outer.use('/outer', app);
  const res = await request(outer).post('/outer/hot').send({});
  expect(JSON.parse(res.text)).toMatchObject({ via: 'lane', url: '/hot' });
});

test('refuses a path it could not match exactly', () => {
  expect(() => serveHotRoute(express(), { method: 'POST', path: 'hot', chain: lane, onError: () => undefined })).toThrow(/bad path/);
  expect(() => serveHotRoute(express(), { method: 'POST', path: '/hot?x', chain: lane, onError: () => undefined })).toThrow(/bad path/);
});
