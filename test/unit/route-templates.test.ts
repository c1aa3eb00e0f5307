/**
 * The one route matcher (src/http/route-templates.ts) decides exactly what Express's router
 * decides: every (method, path) below is sent to a real Express app with the same templates, and
 * the matcher's answer must agree with the route the router reached. Then the places that match
 * paths outside the router: the health probes, the management-only prefixes and the passthrough
 * routes' body limit.
 */
import express from 'express';
import request from 'supertest';
import { RouteTemplates, anyPath, pathMatcher } from '../../src/http/route-templates';
import { declaredLimit } from '../../src/http/early-refusals';
import { loadConfig } from '../../src/config';
import type http from 'node:http';

const TEMPLATES: Array<[string, string]> = [
  ['get', '/keys'],
  ['post', '/keys'],
  ['get', '/keys/:hash'],
  ['patch', '/keys/:hash'],
  ['get', '/workspaces/:id/members'],
  ['post', '/embeddings'],
  ['get', '/models/:author/:slug/endpoints'],
];

const PATHS = [
  '/keys',
  '/keys/',
  '/KEYS',
  '/Keys/',
  '/keys/abc',
  '/keys/abc/',
  '/keys/ABC',
  '/keys//',
  '/keys/a/b',
  '/workspaces/w1/members',
  '/Workspaces/W1/Members/',
  '/workspaces//members',
  '/embeddings',
  '/embeddings/',
  '/EMBEDDINGS',
  '/embeddings/x',
  '/models/openai/text-embedding-3-small/endpoints',
  '/models/a/endpoints',
  '/keys%2Fabc',
  '/keys/a%2Fb',
  '/',
  '/nothing',
];

describe('RouteTemplates agrees with Express 5 routing', () => {
  const templates = new RouteTemplates();
  const app = express();
  for (const [method, path] of TEMPLATES) {
    templates.add(method, path, path);
    app[method as 'get'](path, (_req, res) => void res.set('x-template', path).end());
  }
  app.use((_req, res) => void res.status(404).end());

  const cases = PATHS.flatMap((path) =>
    ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'].map((method) => [method, path] as const),
  );
  test.each(cases)('%s %s', async (method, path) => {
    const res = await request(app)[method.toLowerCase() as 'get'](path);
    expect(templates.match(method, path) ?? null).toBe(res.headers['x-template'] ?? null);
  });
});

describe('paths matched outside the router', () => {
  test("health probes and management prefixes follow the router's defaults", () => {
    const healthz = pathMatcher('/healthz');
    expect(['/healthz', '/HEALTHZ', '/healthz/'].map(healthz)).toEqual([true, true, true]);
    expect(['/healthzz', '/healthz/x', '/'].map(healthz)).toEqual([false, false, false]);
    const management = anyPath(['/keys{/*rest}', '/workspaces{/*rest}']);
    expect(['/keys', '/Keys/', '/keys/a/b', '/WORKSPACES/x'].map(management)).toEqual([true, true, true, true]);
    expect(['/keysx', '/embeddings', '/'].map(management)).toEqual([false, false, false]);
  });

  test('a passthrough route streams its body whatever the case or trailing slash the client used', () => {
    const config = loadConfig({ PASSTHROUGH_BASE_URL: 'http://127.0.0.1:9/v1' });
    const limitOf = declaredLimit(config);
    const req = (method: string, url: string) => ({ method, url, headers: {} }) as http.IncomingMessage;
    for (const url of [
      '/api/v1/completions',
      '/api/v1/Completions',
      '/api/v1/completions/',
      '/api/v1/completions?x=1',
    ]) {
      expect({ url, limit: limitOf(req('POST', url)) }).toEqual({ url, limit: null });
    }
    expect(limitOf(req('POST', '/api/v1/embeddings'))).toBe(config.server.inferenceBodyLimitBytes);
    expect(limitOf(req('POST', '/api/v1/keys'))).toBe(config.server.bodyLimitBytes);
    expect(limitOf(req('GET', '/api/v1/completions'))).toBe(config.server.bodyLimitBytes);
  });
});
