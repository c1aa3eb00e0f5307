/**
 * The one log path: every line (the access lines and all others) goes through winston's formats to
 * one transport, which writes the lines of one event-loop turn in one write, in the order logged.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import express from 'express';
import request from 'supertest';
import { until } from '../helpers/eventually';
import { TS_LOADER } from '../helpers/services';
import { accessLog } from '../../src/http/access-log';
import { requestContext } from '../../src/http/request-context';
import { Metrics } from '../../src/observability/metrics';

function capture() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  return { writes, stream };
}
const turn = () => new Promise((r) => setImmediate(r));

test('lines of one turn leave in one write, each a JSON line with the logger fields', async () => {
  const { writes, stream } = capture();
  const logger = createLogger('info', stream);
  for (const id of ['a', 'b', 'c']) logger.info('request', { request_id: id, status: 200, absent: undefined });
  expect(writes).toEqual([]);
  await turn();
  expect(writes).toHaveLength(1);
  const lines = writes[0]!.split('\n');
  expect(lines.pop()).toBe('');
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(parsed.map((p) => p.request_id)).toEqual(['a', 'b', 'c']);
  for (const p of parsed) {
    expect(p).toMatchObject({ level: 'info', message: 'request', service: 'switchyard', status: 200 });
    expect(Date.parse(p.timestamp as string)).not.toBeNaN();
    expect('absent' in p).toBe(false);
  }
  logger.info('request', { request_id: 'd' });
  await turn();
  expect(writes).toHaveLength(2);
});

test('nothing is written below the info level or when silent', async () => {
  for (const level of ['warn', 'silent']) {
    const { writes, stream } = capture();
    createLogger(level, stream).info('request', { request_id: 'x' });
    await turn();
    expect(writes).toEqual([]);
  }
});

test("no fields, and a field named like a fixed member, still give one valid line at the call's level", async () => {
  const { writes, stream } = capture();
  const logger = createLogger('info', stream);
  logger.info('empty', {});
  logger.info('clash "quoted"', { level: 'debug', n: 1 });
  await turn();
  const [empty, clash] = writes[0]!
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(empty).toMatchObject({ level: 'info', message: 'empty', service: 'switchyard' });
  expect(clash).toMatchObject({ level: 'info', message: 'clash "quoted"', service: 'switchyard', n: 1 });
});

test('access lines and every other line leave in the order they were logged, errors with their stack', async () => {
  const { writes, stream } = capture();
  const logger = createLogger('info', stream);
  logger.info('request', { request_id: 'r1' });
  logger.warn('upstream slow', { provider: 'p' });
  logger.info('request', { request_id: 'r2' });
  logger.error('unhandled error', { error: new Error('boom') });
  logger.info('request', { request_id: 'r3' });
  await turn();
  const lines = writes
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.map((l) => l.request_id ?? l.message)).toEqual(['r1', 'upstream slow', 'r2', 'unhandled error', 'r3']);
  expect(lines[3]).toMatchObject({ level: 'error', error: { name: 'Error', message: 'boom' } });
  expect(String((lines[3]!.error as { stack: string }).stack)).toContain('Error: boom\n    at ');
});

test('an access line keeps its place among the lines logged after it, also with a flush interval', async () => {
  const { writes, stream } = capture();
  const logger = createLogger('info', stream, 40);
  const app = express();
  app.use(requestContext(), accessLog(logger, new Metrics()));
  app.get('/x', (_req, res) => void res.json({ ok: true }));
  await request(app).get('/x').expect(200);
  logger.info('after the answer');
  await until("the interval's write", () => writes.join('').includes('after the answer'));
  const lines = writes
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { message: string });
  expect(lines.map((l) => l.message)).toEqual(['request', 'after the answer']);
});

test('an access line names the path beside the route, without the query string and cut to 200 characters', async () => {
  const { writes, stream } = capture();
  const logger = createLogger('info', stream);
  const app = express();
  app.use(requestContext(), accessLog(logger, new Metrics()));
  const api = express.Router();
  api.get('/keys/:hash', (_req, res) => void res.json({ ok: true }));
  app.use('/api/v1', api);
  await request(app).get('/api/v1/keys/abc123?token=sk-in-the-query&email=a%40b.c').expect(200);
  const long = `/${'p'.repeat(5000)}`;
  await request(app).get(`${long}?q=1`).expect(404);
  await turn();
  const lines = writes
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines.map((l) => l.path)).toEqual(['/api/v1/keys/abc123', `${long.slice(0, 200)}…`]);
  expect(writes.join('')).not.toContain('sk-in-the-query');
  expect(writes.join('')).not.toContain('a%40b.c');
});

test('a level changed at run time applies to the next line, both ways', async () => {
  const { writes, stream } = capture();
  const logger = createLogger('info', stream);
  logger.info('request', { request_id: 'before' });
  logger.level = 'warn';
  logger.info('request', { request_id: 'muted' });
  logger.level = 'debug';
  logger.info('request', { request_id: 'after' });
  await turn();
  const ids = writes
    .join('')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { request_id: string }).request_id);
  expect(ids).toEqual(['before', 'after']);
});

test('each line carries the time it was written (timestamps shared only within a millisecond)', async () => {
  const { writes, stream } = capture();
  // A fake clock moves on exactly between the lines; event-loop turns stay real.
  jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
  try {
    const logger = createLogger('info', stream);
    const t0 = Date.now();
    logger.info('request', { request_id: 'first' });
    jest.advanceTimersByTime(25);
    const t1 = Date.now();
    logger.info('request', { request_id: 'second' });
    await turn();
    const stamps = writes
      .join('')
      .trim()
      .split('\n')
      .map((l) => Date.parse((JSON.parse(l) as { timestamp: string }).timestamp));
    expect(stamps[0]).toBeGreaterThanOrEqual(t0);
    expect(stamps[0]).toBeLessThan(t1);
    expect(stamps[1]).toBeGreaterThanOrEqual(t1);
  } finally {
    jest.useRealTimers();
  }
});

describe('with a flush interval', () => {
  test('lines wait for the interval and then leave in one write, not at the end of the turn', async () => {
    // Fake timers for the interval (a real one is overtaken by any stall of a loaded machine);
    // event-loop turns stay real.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { writes, stream } = capture();
      const logger = createLogger('info', stream, 40);
      logger.info('request', { request_id: 'a' });
      await turn();
      jest.advanceTimersByTime(39);
      logger.info('request', { request_id: 'b' });
      await turn();
      expect(writes).toEqual([]);
      jest.advanceTimersByTime(1);
      await turn();
      expect(writes).toHaveLength(1);
      expect(
        writes[0]!
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { request_id: string }).request_id),
      ).toEqual(['a', 'b']);
      logger.info('request', { request_id: 'c' });
      await turn();
      expect(writes).toHaveLength(1);
      jest.advanceTimersByTime(40);
      await turn();
      expect(writes).toHaveLength(2);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a large backlog is written at once, without waiting for the interval', () => {
    const { writes, stream } = capture();
    const logger = createLogger('info', stream, 1000);
    const long = 'x'.repeat(1000);
    for (let i = 0; i < 100; i++) logger.info('request', { request_id: `r${i}`, note: long });
    expect(writes.length).toBeGreaterThanOrEqual(1);
    const written = writes
      .join('')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { request_id: string }).request_id);
    expect(written).toEqual(Array.from({ length: written.length }, (_, i) => `r${i}`));
    expect(written.length).toBeGreaterThanOrEqual(50);
    expect(written.length).toBeLessThan(100);
  });

  test('a process that exits with lines waiting still writes them', () => {
    const logger = JSON.stringify(path.join(__dirname, '../../src/observability/logger'));
    const script = `const { createLogger } = require(${logger});
      const l = createLogger('info', undefined, 60000);
      l.info('request', { request_id: 'last-words' });`;
    const out = execFileSync(process.execPath, ['-r', TS_LOADER, '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(JSON.parse(out.trim())).toMatchObject({ request_id: 'last-words', message: 'request' });
  });
});
