/**
 * Errors passed as log fields reach the log line with their message and stack: a real logger
 * (createLogger) writing to a stream, read back as JSON, not a mock.
 */
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../src/observability/logger';

/** A logger at `level` writing to a stream, and the JSON lines written so far. */
function capture(level = 'debug') {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    const parts = text.split('\n');
    text = parts.pop() ?? '';
    for (const p of parts) if (p.trim() !== '') lines.push(JSON.parse(p) as Record<string, unknown>);
  });
  return { logger: createLogger(level, stream), lines };
}

/** Let the stream deliver what the logger wrote. */
const delivered = () => new Promise((resolve) => setImmediate(resolve));

test('an Error in the fields is written with name, message, stack and code, at any level', async () => {
  const { logger, lines } = capture();
  const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), {
    code: 'ECONNREFUSED',
    secret: 'not logged',
  });
  logger.error('usage record failed', { request_id: 'r1', err });
  logger.warn('circuit breaker state unavailable; failing open', { op: 'check', error: new TypeError('bad reply') });
  await delivered();
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({ level: 'error', message: 'usage record failed', request_id: 'r1' });
  expect(lines[0]!.err).toEqual({
    name: 'Error',
    message: 'connect ECONNREFUSED 127.0.0.1:6379',
    code: 'ECONNREFUSED',
    stack: err.stack,
  });
  expect(String((lines[0]!.err as { stack: string }).stack)).toContain('logger-errors.test.ts');
  expect(lines[1]).toMatchObject({ level: 'warn', op: 'check', error: { name: 'TypeError', message: 'bad reply' } });
  expect((lines[1]!.error as { stack?: string }).stack).toMatch(/^TypeError: bad reply\n\s+at /);
});

test('an Error one object down and its cause are written too; other values are untouched', async () => {
  const { logger, lines } = capture();
  const cause = new Error('socket hang up');
  logger.warn('store failed', {
    detail: { attempt: 2, err: new Error('query failed', { cause }) },
    list: [1, 2],
    n: 3,
  });
  await delivered();
  expect(lines[0]).toMatchObject({
    n: 3,
    list: [1, 2],
    detail: { attempt: 2, err: { message: 'query failed', cause: { message: 'socket hang up' } } },
  });
  expect((lines[0]!.detail as { err: { stack?: string } }).err.stack).toContain('query failed');
});

test("the caller's own objects are not changed by the logging", () => {
  const { logger } = capture();
  const err = new Error('kept');
  const detail = { err };
  logger.error('x', { detail, err });
  expect(detail.err).toBe(err);
});

test("an Error as the message itself keeps winston's own handling (message and stack)", async () => {
  const { logger, lines } = capture();
  logger.error(new Error('thrown at startup'));
  await delivered();
  expect(lines[0]).toMatchObject({ level: 'error', message: 'thrown at startup' });
  expect(String(lines[0]!.stack)).toContain('thrown at startup');
});

test('an error made by Node itself (another realm under the test runner) is written too', async () => {
  const { logger, lines } = capture();
  const err = await new Promise<Error>((resolve) => net.connect(1, '127.0.0.1').on('error', resolve));
  logger.warn('redis connection error', { err });
  await delivered();
  expect(lines[0]).toMatchObject({ err: { message: expect.stringContaining('ECONNREFUSED'), code: 'ECONNREFUSED' } });
  expect((lines[0]!.err as { stack?: string }).stack).toContain('ECONNREFUSED');
});
