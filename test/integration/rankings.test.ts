/**
 * `GET /datasets/rankings-daily` through HTTP on every database: defaults from a fixed clock,
 * clamping, every 400 rule and combination, periods, each modality and context bucket, top 50 +
 * `other` with 60 models, ties, the catalog's permaslug and public flag, tenant isolation, auth.
 * Each test writes usage records for an organization of its own and runs the rollup.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp-dir';
import { parse, stringify } from 'yaml';
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { MemoryKv } from '../../src/kv/memory';
import type { Database } from '../../src/store/db';
import { provisionOrg } from '../../src/orgs/provision';
import { getRankings, insertUses, rankedEvent, type RankedUse } from '../helpers/rankings';
import { fromRoot } from '../../src/paths';

/** 2026-05-12 02:00 UTC: the last completed day is 2026-05-11. */
const NOW = Date.UTC(2026, 4, 12, 2, 0);
const clock = () => NOW;

/** A catalog copy where one model is renamed (permaslug) and one is not public. */
function testCatalog(): string {
  const doc = parse(readFileSync(fromRoot('config', 'models.yaml'), 'utf8')) as {
    models: Array<Record<string, unknown>>;
  };
  const small = doc.models.find((m) => m.id === 'openai/text-embedding-3-small') as Record<string, unknown>;
  small.permaslug = 'openai/text-embedding-3-small-20240125';
  const mistral = doc.models.find((m) => m.id === 'mistralai/mistral-embed') as Record<string, unknown>;
  mistral.public = false;
  const file = path.join(tempDir('sy-rankings-'), 'models.yaml');
  writeFileSync(file, stringify(doc));
  return file;
}

describe.each(DATABASES)('rankings-daily on $name', (dbKind) => {
  let db: Database;
  let gw: TestGateway;

  beforeAll(async () => {
    db = await dbKind.open();
    gw = await createTestGateway(db, new MemoryKv(), { catalog: { modelsFile: testCatalog() } }, clock);
  });
  afterAll(async () => {
    await db.close();
  });

  /** A new organization with its management key, and its records rolled up. */
  async function tenant(uses: (org: string) => RankedUse[]): Promise<{ org: string; secret: string }> {
    const created = await db.transaction((tx) => provisionOrg(tx, 'Rankings Org'));
    await insertUses(db, uses(created.org.id));
    await gw.deps.rankings.rollup.run();
    return { org: created.org.id, secret: created.secret };
  }

  const get = (secret: string, query: Record<string, string> | string = {}) => getRankings(gw.app, secret, query);

  test('defaults: the last completed UTC day and the 30 days before it, as_of the rollup time, version v1', async () => {
    const t = await tenant((org) => [
      { org, model: 'openai/text-embedding-3-large', at: '2026-05-11T23:59:59Z', prompt: 5 },
    ]);
    const res = await get(t.secret);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({
      as_of: new Date(NOW).toISOString(),
      start_date: '2026-04-11',
      end_date: '2026-05-11',
      version: 'v1',
    });
    expect(res.body.data).toEqual([
      { date: '2026-05-11', model_permaslug: 'openai/text-embedding-3-large', total_tokens: '5' },
    ]);
    // Today (not completed) is outside the default window but can be asked for.
    const explicit = await get(t.secret, { end_date: '2026-05-20' });
    expect(explicit.body.meta).toMatchObject({ start_date: '2026-04-20', end_date: '2026-05-20' });
  });

  test('start_date before 2025-01-01 is clamped forward and echoed; the window is inclusive', async () => {
    const t = await tenant((org) => [
      { org, model: 'openai/text-embedding-3-large', at: '2025-01-01T00:00:00Z', prompt: 7 },
      { org, model: 'openai/text-embedding-3-large', at: '2025-01-10T12:00:00Z', prompt: 3 },
      { org, model: 'openai/text-embedding-3-large', at: '2025-01-11T00:00:00Z', prompt: 100 },
    ]);
    // The rollup covers 2025 days: they were never rolled before.
    const res = await get(t.secret, { start_date: '0001-01-01', end_date: '2025-01-10' });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ start_date: '2025-01-01', end_date: '2025-01-10' });
    expect(res.body.data.map((r: { date: string; total_tokens: string }) => [r.date, r.total_tokens])).toEqual([
      ['2025-01-01', '7'],
      ['2025-01-10', '3'],
    ]);
    // Default start from a given end_date: 30 days before it, clamped as well.
    const defaulted = await get(t.secret, { end_date: '2025-01-20' });
    expect(defaulted.body.meta).toMatchObject({ start_date: '2025-01-01', end_date: '2025-01-20' });
  });

  describe('400 Invalid request parameters', () => {
    let secret: string;
    beforeAll(async () => {
      secret = (await tenant(() => [])).secret;
    });

    test.each([
      ['end_date before 2025-01-01', 'end_date=2024-12-31', 'query.end_date'],
      ['start_date after end_date', 'start_date=2026-05-02&end_date=2026-05-01', 'query.start_date'],
      ['start_date after the default end_date', 'start_date=2026-05-12', 'query.start_date'],
      ['a malformed date', 'start_date=2026-5-01', 'query.start_date'],
      ['a date that is not in the calendar', 'end_date=2026-02-30', 'query.end_date'],
      ['a timestamp instead of a date', 'end_date=2026-02-01T00:00:00Z', 'query.end_date'],
      ['an unknown period', 'period=year', 'query.period'],
      ['an unknown modality', 'modality=video', 'query.modality'],
      ['an unknown context bucket', 'context_bucket=2K', 'query.context_bucket'],
      ['an unknown category', 'category=cooking', 'query.category'],
      ['a category in the wrong case', 'category=Programming', 'query.category'],
      ['an unknown language type', 'language_type=klingon', 'query.language_type'],
      ['an unknown parameter', 'modalty=image', 'query.modalty'],
      ['a repeated parameter', 'period=day&period=week', 'query.period'],
      ['an empty value', 'modality=', 'query.modality'],
    ])('%s', async (_name, query, where) => {
      const res = await get(secret, query);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
      expect(res.body.error.metadata.errors.map((e: { path: string }) => e.path)).toContain(where);
    });

    test.each([
      ['modality=text&category=programming', /modality may not be combined with category \(combination rule 1\)/],
      ['modality=audio&language_type=natural', /modality may not be combined with language_type/],
      ['context_bucket=1K&category=legal', /context_bucket may not be combined with category/],
      ['context_bucket=10M&language_type=programming', /context_bucket may not be combined with language_type/],
      [
        'category=finance&language_type=natural',
        /category may not be combined with language_type \(combination rule 2\)/,
      ],
      ['category=health&period=day', /combination rule 4/],
      ['language_type=natural&period=day', /combination rule 4/],
    ])('combination %s', async (query, message) => {
      const res = await get(secret, query);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Invalid request parameters');
      expect(JSON.stringify(res.body.error.metadata)).toMatch(message);
    });

    test('every broken rule is named in one answer', async () => {
      const res = await get(
        secret,
        'modality=image&category=legal&language_type=natural&period=day&end_date=2024-01-01',
      );
      expect(res.status).toBe(400);
      expect(res.body.error.metadata.errors.length).toBeGreaterThanOrEqual(5);
    });

    test('modality with context_bucket is allowed (rule 1 forbids neither), and so are week/month with sampled datasets', async () => {
      for (const q of [
        'modality=text&context_bucket=1K',
        'category=legal&period=month',
        'language_type=natural&period=week',
        'category=legal',
      ]) {
        const res = await get(secret, q);
        expect({ q, status: res.status }).toEqual({ q, status: 200 });
      }
    });
  });

  test('rows: date ascending, tokens descending, ties by permaslug, prompt + completion tokens, periods week (ISO Monday) and month', async () => {
    const L = 'openai/text-embedding-3-large';
    const G = 'google/gemini-embedding-001';
    const C = 'cohere/embed-v4.0';
    const t = await tenant((org) => [
      { org, model: L, at: '2026-04-27T10:00:00Z', prompt: 10 }, // Monday
      { org, model: G, at: '2026-04-27T11:00:00Z', prompt: 10 }, // tie with L: alphabetical
      { org, model: C, at: '2026-04-27T12:00:00Z', prompt: 4, completion: 1 },
      {
        org,
        model: C,
        at: '2026-04-30T12:00:00Z',
        prompt: 50,
        completion: 20,
        apiType: 'chat',
        outputModality: 'text',
      }, // Thursday
      { org, model: L, at: '2026-05-03T23:00:00Z', prompt: 1 }, // Sunday: same ISO week
      { org, model: L, at: '2026-05-04T00:00:00Z', prompt: 2 }, // next Monday, next month
    ]);
    const day = await get(t.secret, { start_date: '2026-04-27', end_date: '2026-05-04' });
    expect(day.body.data).toEqual([
      { date: '2026-04-27', model_permaslug: G, total_tokens: '10' },
      { date: '2026-04-27', model_permaslug: L, total_tokens: '10' },
      { date: '2026-04-27', model_permaslug: C, total_tokens: '5' },
      { date: '2026-04-30', model_permaslug: C, total_tokens: '70' },
      { date: '2026-05-03', model_permaslug: L, total_tokens: '1' },
      { date: '2026-05-04', model_permaslug: L, total_tokens: '2' },
    ]);
    const week = await get(t.secret, { start_date: '2026-04-27', end_date: '2026-05-04', period: 'week' });
    expect(week.body.data).toEqual([
      { date: '2026-04-27', model_permaslug: C, total_tokens: '75' },
      { date: '2026-04-27', model_permaslug: L, total_tokens: '11' },
      { date: '2026-04-27', model_permaslug: G, total_tokens: '10' },
      { date: '2026-05-04', model_permaslug: L, total_tokens: '2' },
    ]);
    // A week bucket starting before start_date holds only the days in the window.
    const partial = await get(t.secret, { start_date: '2026-04-30', end_date: '2026-05-04', period: 'week' });
    expect(partial.body.data).toEqual([
      { date: '2026-04-27', model_permaslug: C, total_tokens: '70' },
      { date: '2026-04-27', model_permaslug: L, total_tokens: '1' },
      { date: '2026-05-04', model_permaslug: L, total_tokens: '2' },
    ]);
    const month = await get(t.secret, { start_date: '2026-04-27', end_date: '2026-05-04', period: 'month' });
    expect(month.body.data).toEqual([
      { date: '2026-04-01', model_permaslug: C, total_tokens: '75' },
      { date: '2026-04-01', model_permaslug: G, total_tokens: '10' },
      { date: '2026-04-01', model_permaslug: L, total_tokens: '10' },
      { date: '2026-05-01', model_permaslug: L, total_tokens: '3' },
    ]);
    // Whole months and weeks come from the period totals, the edges from the daily ones: the same figures.
    const wholeMonths = await get(t.secret, { start_date: '2026-04-01', end_date: '2026-05-31', period: 'month' });
    expect(wholeMonths.body.data).toEqual(month.body.data);
    const wholeWeeks = await get(t.secret, { start_date: '2026-04-20', end_date: '2026-05-10', period: 'week' });
    expect(wholeWeeks.body.data).toEqual(week.body.data);
    const edges = await get(t.secret, { start_date: '2026-04-28', end_date: '2026-05-04', period: 'week' });
    expect(edges.body.data).toEqual(
      [
        { date: '2026-04-27', model_permaslug: C, total_tokens: '70' },
        { date: '2026-04-27', model_permaslug: L, total_tokens: '1' },
        { date: '2026-04-27', model_permaslug: G, total_tokens: '0' },
        { date: '2026-05-04', model_permaslug: L, total_tokens: '2' },
      ].filter((r) => r.total_tokens !== '0'),
    );
  });

  test('modality: image/audio match the input, text/image_output the output (embeddings are neither), tool_calling', async () => {
    const at = '2026-05-01T08:00:00Z';
    const t = await tenant((org) => [
      { org, model: 'emb/text', at, prompt: 1 }, // embeddings of text
      { org, model: 'emb/image', at, prompt: 2, inputModality: 'text+image' },
      { org, model: 'emb/audio', at, prompt: 4, inputModality: 'audio' },
      { org, model: 'chat/text', at, prompt: 8, apiType: 'chat', outputModality: 'text' },
      { org, model: 'chat/image-out', at, prompt: 16, apiType: 'chat', outputModality: 'image' },
      { org, model: 'chat/tools', at, prompt: 32, apiType: 'chat', outputModality: 'text', toolCalls: 2 },
      { org, model: 'old/emb', at, prompt: 64, outputModality: null, inputModality: null }, // before migration 006
      { org, model: 'old/chat', at, prompt: 128, outputModality: null, apiType: 'chat' },
    ]);
    const models = async (modality: string) =>
      (await get(t.secret, { start_date: '2026-05-01', end_date: '2026-05-01', modality })).body.data
        .map((r: { model_permaslug: string }) => r.model_permaslug)
        .sort();
    expect(await models('text')).toEqual(['chat/text', 'chat/tools', 'old/chat']);
    expect(await models('image')).toEqual(['emb/image']);
    expect(await models('audio')).toEqual(['emb/audio']);
    expect(await models('image_output')).toEqual(['chat/image-out']);
    expect(await models('tool_calling')).toEqual(['chat/tools']);
    const all = await get(t.secret, { start_date: '2026-05-01', end_date: '2026-05-01' });
    expect(all.body.data).toHaveLength(8);
  });

  test('chat records written by the usage recorder fill the modality and context-bucket datasets (organization scope)', async () => {
    const created = await db.transaction((tx) => provisionOrg(tx, 'Chat Rankings Org'));
    const org = created.org.id;
    const at = '2026-05-06T09:00:00Z';
    // As POST /chat/completions records them: output text, the prompt's media as input modality, tool calls, chat fields.
    const chat = (model: string, prompt: number, over: { inputModality?: string; toolCalls?: number } = {}) => ({
      ...rankedEvent({ org, model, at, prompt, completion: 100, apiType: 'chat', outputModality: 'text', ...over }),
      id: `gen-${Math.floor(Date.parse(at) / 1000)}-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      finishReason: over.toolCalls ? 'tool_calls' : 'stop',
      streamed: true,
      timeToFirstTokenMs: 120,
      reasoningTokens: 0,
    });
    for (const e of [
      chat('chat/plain', 900),
      chat('chat/vision', 5_000, { inputModality: 'text+image' }),
      chat('chat/listen', 50_000, { inputModality: 'text+audio' }),
      chat('chat/agent', 200_000, { toolCalls: 3 }),
      chat('chat/agent', 2_000_000, { toolCalls: 1, inputModality: 'text+image' }),
    ])
      await gw.deps.recorder.record(e);
    await gw.deps.recorder.flush();
    await gw.deps.rankings.rollup.run();
    const rows = async (q: Record<string, string>) =>
      (await get(created.secret, { start_date: '2026-05-06', end_date: '2026-05-06', ...q })).body.data.map(
        (r: { model_permaslug: string; total_tokens: string }) => [r.model_permaslug, r.total_tokens],
      );
    expect(await rows({ modality: 'text' })).toEqual([
      ['chat/agent', '2200200'],
      ['chat/listen', '50100'],
      ['chat/vision', '5100'],
      ['chat/plain', '1000'],
    ]);
    expect(await rows({ modality: 'image' })).toEqual([
      ['chat/agent', '2000100'],
      ['chat/vision', '5100'],
    ]);
    expect(await rows({ modality: 'audio' })).toEqual([['chat/listen', '50100']]);
    expect(await rows({ modality: 'tool_calling' })).toEqual([['chat/agent', '2200200']]);
    expect(await rows({ modality: 'image_output' })).toEqual([]);
    expect(await rows({ context_bucket: '1K' })).toEqual([['chat/plain', '1000']]);
    expect(await rows({ context_bucket: '10K' })).toEqual([['chat/vision', '5100']]);
    expect(await rows({ context_bucket: '100K' })).toEqual([['chat/listen', '50100']]);
    expect(await rows({ context_bucket: '1M' })).toEqual([['chat/agent', '200100']]);
    expect(await rows({ context_bucket: '10M', modality: 'tool_calling' })).toEqual([['chat/agent', '2000100']]);
  });

  test('context_bucket by prompt tokens: 1K ≤ 1,000 < 10K ≤ 10,000 < 100K ≤ 100,000 < 1M ≤ 1,000,000 < 10M', async () => {
    const at = '2026-05-02T08:00:00Z';
    const sizes = [0, 1000, 1001, 10000, 10001, 100000, 100001, 1000000, 1000001, 9000000];
    const t = await tenant((org) => sizes.map((prompt) => ({ org, model: `m/p${prompt}`, at, prompt, completion: 5 })));
    const models = async (bucket: string) =>
      (await get(t.secret, { start_date: '2026-05-02', end_date: '2026-05-02', context_bucket: bucket })).body.data
        .map((r: { model_permaslug: string }) => r.model_permaslug)
        .sort();
    expect(await models('1K')).toEqual(['m/p0', 'm/p1000']);
    expect(await models('10K')).toEqual(['m/p10000', 'm/p1001']);
    expect(await models('100K')).toEqual(['m/p100000', 'm/p10001']);
    expect(await models('1M')).toEqual(['m/p1000000', 'm/p100001']);
    expect(await models('10M')).toEqual(['m/p1000001', 'm/p9000000']);
    // Combined with a modality; and a filter nothing matches answers 200 with no rows.
    expect(
      (
        await get(t.secret, {
          start_date: '2026-05-02',
          end_date: '2026-05-02',
          context_bucket: '1K',
          modality: 'text',
        })
      ).body.data,
    ).toEqual([]);
  });

  test('top 50 + other with 60 models: ties alphabetical, other sums the rest and comes last; no other when nothing is left', async () => {
    const at = '2026-05-05T08:00:00Z';
    // m00..m59: tokens 1000 - 10*i, except m10/m11 tie at 900.
    const t = await tenant((org) => [
      ...Array.from({ length: 60 }, (_, i) => ({
        org,
        model: `vendor/m${String(i).padStart(2, '0')}`,
        at,
        prompt: i === 11 ? 900 : 1000 - 10 * i,
      })),
      ...Array.from({ length: 50 }, (_, i) => ({
        org,
        model: `vendor/m${String(i).padStart(2, '0')}`,
        at: '2026-05-06T08:00:00Z',
        prompt: 10,
      })),
    ]);
    const res = await get(t.secret, { start_date: '2026-05-05', end_date: '2026-05-06' });
    const first = res.body.data.filter((r: { date: string }) => r.date === '2026-05-05');
    expect(first).toHaveLength(51);
    expect(first.slice(0, 12).map((r: { model_permaslug: string }) => r.model_permaslug)).toEqual([
      'vendor/m00',
      'vendor/m01',
      'vendor/m02',
      'vendor/m03',
      'vendor/m04',
      'vendor/m05',
      'vendor/m06',
      'vendor/m07',
      'vendor/m08',
      'vendor/m09',
      'vendor/m10',
      'vendor/m11',
    ]);
    expect(first[49].model_permaslug).toBe('vendor/m49');
    // m50..m59: 500 + 490 + … + 410 = 4550.
    expect(first[50]).toEqual({ date: '2026-05-05', model_permaslug: 'other', total_tokens: '4550' });
    const second = res.body.data.filter((r: { date: string }) => r.date === '2026-05-06');
    expect(second).toHaveLength(50);
    expect(second.map((r: { model_permaslug: string }) => r.model_permaslug)).toEqual(
      Array.from({ length: 50 }, (_, i) => `vendor/m${String(i).padStart(2, '0')}`),
    );
    expect(second.some((r: { model_permaslug: string }) => r.model_permaslug === 'other')).toBe(false);
  });

  test('whole weeks read only the rows that can reach the top 50: same answer as the daily path, ties at the cut, renamed and hidden models', async () => {
    const at = '2026-03-04T08:00:00Z'; // Wednesday of the week of 2026-03-02
    const m = (i: number) => `vendor/m${String(i).padStart(2, '0')}`;
    const t = await tenant((org) => [
      { org, model: 'mistralai/mistral-embed', at, prompt: 100000 }, // rank 1, not public: other
      ...Array.from({ length: 48 }, (_, i) => ({ org, model: m(i), at, prompt: 1000 - i })), // ranks 2–49
      ...Array.from({ length: 10 }, (_, i) => ({ org, model: m(48 + i), at, prompt: 10 })), // a tie at rank 50, across the top 50
      { org, model: 'openai/text-embedding-3-small', at, prompt: 7 }, // rank 60, renamed: always read
      ...Array.from({ length: 20 }, (_, i) => ({ org, model: m(58 + i), at, prompt: 5 })), // rank 61, past the read cut (50 + 4)
    ]);
    const whole = await get(t.secret, { start_date: '2026-03-02', end_date: '2026-03-08', period: 'week' });
    const daily = await get(t.secret, { start_date: '2026-03-03', end_date: '2026-03-08', period: 'week' });
    expect(whole.body.data).toEqual(daily.body.data);
    expect(whole.body.data.map((r: { model_permaslug: string }) => r.model_permaslug)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => m(i)),
      'other',
    ]);
    // mistral + 8 of the tie + the renamed model + the 20 never read.
    expect(whole.body.data[50]).toEqual({
      date: '2026-03-02',
      model_permaslug: 'other',
      total_tokens: String(100000 + 8 * 10 + 7 + 20 * 5),
    });
    const monthly = await get(t.secret, { start_date: '2026-03-01', end_date: '2026-03-31', period: 'month' });
    expect(monthly.body.data.map((r: { total_tokens: string }) => r.total_tokens)).toEqual(
      whole.body.data.map((r: { total_tokens: string }) => r.total_tokens),
    );
  });

  test('catalog: permaslug names the model; a non-public model counts only in other', async () => {
    const at = '2026-05-07T08:00:00Z';
    const t = await tenant((org) => [
      { org, model: 'openai/text-embedding-3-small', at, prompt: 30 },
      { org, model: 'mistralai/mistral-embed', at, prompt: 20 },
      { org, model: 'openai/text-embedding-3-large', at, prompt: 10 },
    ]);
    const res = await get(t.secret, { start_date: '2026-05-07', end_date: '2026-05-07' });
    expect(res.body.data).toEqual([
      { date: '2026-05-07', model_permaslug: 'openai/text-embedding-3-small-20240125', total_tokens: '30' },
      { date: '2026-05-07', model_permaslug: 'openai/text-embedding-3-large', total_tokens: '10' },
      { date: '2026-05-07', model_permaslug: 'other', total_tokens: '20' },
    ]);
  });

  test('tenant isolation: a key sees only its own organization, whatever its kind', async () => {
    const at = '2026-05-08T08:00:00Z';
    const a = await tenant((org) => [{ org, model: 'a/model', at, prompt: 11 }]);
    const b = await tenant((org) => [{ org, model: 'b/model', at, prompt: 22 }]);
    const q = { start_date: '2026-05-08', end_date: '2026-05-08' };
    expect((await get(a.secret, q)).body.data).toEqual([
      { date: '2026-05-08', model_permaslug: 'a/model', total_tokens: '11' },
    ]);
    expect((await get(b.secret, q)).body.data).toEqual([
      { date: '2026-05-08', model_permaslug: 'b/model', total_tokens: '22' },
    ]);
    // An inference key of organization a: the same answer as its management key.
    const inference = await createInferenceKey({ app: gw.app, mgmtKey: a.secret });
    const res = await get(inference.secret, q);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ date: '2026-05-08', model_permaslug: 'a/model', total_tokens: '11' }]);
  });

  test('auth: no header 401, an unknown key 401', async () => {
    const none = await request(gw.app).get('/api/v1/datasets/rankings-daily');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe(401);
    const unknown = await getRankings(gw.app, 'sk-or-v1-' + '0'.repeat(64));
    expect(unknown.status).toBe(401);
  });

  test('as_of before any rollup is the epoch', async () => {
    const fresh = await dbKind.open();
    try {
      const other = await createTestGateway(fresh, new MemoryKv(), {}, clock);
      const res = await getRankings(other.app, other.mgmtKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [],
        meta: { as_of: '1970-01-01T00:00:00.000Z', start_date: '2026-04-11', end_date: '2026-05-11', version: 'v1' },
      });
    } finally {
      await fresh.close();
    }
  });
});
