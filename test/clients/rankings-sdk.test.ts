/**
 * The official `@openrouter/sdk` (ESM, run in a child process) against a listening gateway:
 * `datasets.getRankingsDaily` parses every answer (each period, modality, context bucket,
 * sampled dataset, the clamped window: `version: "v1"`, decimal-string tokens) and maps the
 * refusals to its typed 400 error.
 */
import { listenGateway, runClientScript, type ListeningGateway } from '../helpers/listening';
import { openTestPglite, uniqueId } from '../helpers/services';
import { insertUses } from '../helpers/rankings';
import { MemoryKv } from '../../src/kv/memory';
import { listOrgs } from '../../src/orgs/repository';
import type { Database } from '../../src/store/db';
import { RankingsRollup } from '../../src/datasets/rollup';
import { formatDay, parseDay, weekStart } from '../../src/datasets/dates';

interface Call {
  data?: Array<{ date: string; modelPermaslug: string; totalTokens: string }>;
  meta?: { asOf: string; startDate: string; endDate: string; version: string };
  error?: unknown;
  raw?: string;
}

const DAY = 86_400_000;
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let db: Database;
let gw: ListeningGateway;
const yesterday = dayText(Date.now() - DAY);
const before = dayText(Date.now() - 2 * DAY);

beforeAll(async () => {
  db = await openTestPglite();
  gw = await listenGateway(db, new MemoryKv(`t:${uniqueId()}:`));
  const [org] = await listOrgs(db);
  const o = org!.id;
  const at = (day: string) => `${day}T12:00:00Z`;
  await insertUses(db, [
    { org: o, model: 'openai/text-embedding-3-small', at: at(yesterday), prompt: 500 },
    {
      org: o,
      model: 'x/chat',
      at: at(yesterday),
      prompt: 5000,
      completion: 100,
      apiType: 'chat',
      outputModality: 'text',
      toolCalls: 1,
    },
    {
      org: o,
      model: 'x/vision',
      at: at(before),
      prompt: 20,
      inputModality: 'text+image',
      outputModality: 'image',
      apiType: 'chat',
    },
    { org: o, model: 'x/audio', at: at(before), prompt: 2_000_000, inputModality: 'audio' },
  ]);
  await db.query(
    'INSERT INTO rankings_samples (sampled_at, org_id, model, tokens, weight, language_type, category) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [at(yesterday), o, 'openai/text-embedding-3-small', 50, 20, 'natural', 'marketing/seo'],
  );
});
afterAll(() => gw.server.shutdown('test'));

test('datasets.getRankingsDaily parses every answer and refuses what the spec refuses', async () => {
  // What the schedule (or `switchyard rollup`) does, over the same database.
  await new RankingsRollup(db, { lookbackDays: 3, clock: Date.now }).run();
  const r = await runClientScript<{
    calls: Record<string, Call>;
    errors: Record<string, { name: string; status: number } | string>;
  }>('rankings-sdk.mjs', [gw.baseUrl, gw.mgmtKey, before, yesterday, formatDay(weekStart(parseDay(before) as number))]);
  for (const [name, call] of Object.entries(r.calls)) {
    expect({ name, error: call.error }).toEqual({ name, error: undefined });
    expect(call.meta?.version).toBe('v1');
    // Every row the server sent survived the SDK's parsing unchanged.
    const sent = (
      JSON.parse(call.raw as string) as { data: Array<{ date: string; model_permaslug: string; total_tokens: string }> }
    ).data;
    expect(call.data).toEqual(
      sent.map((row) => ({ date: row.date, modelPermaslug: row.model_permaslug, totalTokens: row.total_tokens })),
    );
  }
  const models = (name: string) => r.calls[name]!.data!.map((row) => row.modelPermaslug).sort();
  expect(r.calls.defaults!.meta).toMatchObject({ endDate: yesterday });
  expect(r.calls.window!.data).toEqual([
    { date: before, modelPermaslug: 'x/audio', totalTokens: '2000000' },
    { date: before, modelPermaslug: 'x/vision', totalTokens: '20' },
    { date: yesterday, modelPermaslug: 'x/chat', totalTokens: '5100' },
    { date: yesterday, modelPermaslug: 'openai/text-embedding-3-small', totalTokens: '500' },
  ]);
  expect(models('text')).toEqual(['x/chat']);
  expect(models('image')).toEqual(['x/vision']);
  expect(models('imageOutput')).toEqual(['x/vision']);
  expect(models('audio')).toEqual(['x/audio']);
  expect(models('tools')).toEqual(['x/chat']);
  expect(models('bucket1K')).toEqual(['openai/text-embedding-3-small', 'x/vision']);
  expect(models('bucket10M')).toEqual(['x/audio']);
  expect(models('bucketAndModality')).toEqual(['x/chat']);
  expect(r.calls.category!.data!.map((row) => row.totalTokens)).toEqual(['1000']);
  expect(r.calls.clamped!.meta!.startDate).toBe('2025-01-01');
  for (const name of ['week', 'month', 'categoryMonth', 'language'])
    expect(Array.isArray(r.calls[name]!.data)).toBe(true);
  for (const [name, error] of Object.entries(r.errors))
    expect({ name, error }).toEqual({
      name,
      error: expect.objectContaining({ name: 'BadRequestResponseError', status: 400 }),
    });
});
