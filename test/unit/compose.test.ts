/**
 * `compose` runs middleware as one Express layer with Express's own semantics: order, `next()`
 * to continue, `next(err)` and thrown or rejected errors to the error handlers, `next('route')`
 * handed to the enclosing router, and falling through when every handler calls `next()`.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { compose } from '../../src/http/compose';

function app(...handlers: Parameters<typeof compose>) {
  const a = express();
  a.use('/p', compose(...handlers));
  a.use((_req: Request, res: Response) => void res.status(404).send('fell through'));
  a.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => void res.status(500).send(`error: ${(err as Error).message}`));
  return a;
}

test('runs handlers in order, each continuing with next()', async () => {
  const seen: string[] = [];
  const res = await request(
    app(
      (_req, _res, next) => void (seen.push('a'), next()),
      async (_req, _res, next) => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push('b');
        next();
      },
      (_req, res) => void res.send(seen.join('')),
    ),
  ).get('/p/x');
  expect(res.text).toBe('ab');
});

test('falls through to the next layer when every handler calls next()', async () => {
  const res = await request(app((_req, _res, next) => next())).get('/p');
  expect(res.status).toBe(404);
  expect(res.text).toBe('fell through');
});

test('next(err), a throw and a rejected promise all reach the error handler, skipping the rest', async () => {
  const later = jest.fn();
  for (const failing of [
    (_req: Request, _res: Response, next: NextFunction) => next(new Error('passed')),
    () => {
      throw new Error('thrown');
    },
    async () => Promise.reject(new Error('rejected')),
  ]) {
    const res = await request(app(failing, later)).get('/p');
    expect(res.status).toBe(500);
    expect(res.text).toMatch(/^error: (passed|thrown|rejected)$/);
  }
  expect(later).not.toHaveBeenCalled();
});

test("next('route') leaves the chain like any Express layer", async () => {
  const later = jest.fn();
  const res = await request(app((_req, _res, next) => next('route'), later)).get('/p');
  expect(res.status).toBe(404);
  expect(later).not.toHaveBeenCalled();
});

test('refuses an empty chain at construction', () => {
  expect(() => compose()).toThrow(/at least one/);
});
