/**
 * Reported usage is bounded by what the request makes possible (src/usage/bounds.ts): counts
 * out of bounds, negative, fractional or not finite are replaced by the gateway's own count and
 * named, the parts stay within their wholes, and a cost never passes its reservation. The
 * parsers keep a bad figure for the bounds to see rather than reading it as 0.
 */
import { boundChatUsage, chatUsageLimits, isCountWithin, withinReservation } from '../../src/usage/bounds';
import { usageOf as openaiUsage } from '../../src/providers/openai/chat-response';
import { usageOf as anthropicUsage } from '../../src/providers/anthropic/finish';
import { chargedUsage, normaliseInput } from '../../src/embeddings/input';
import { chatEndpoint } from '../helpers/chat-endpoint';

const endpoint = chatEndpoint({ contextLength: 1000, maxCompletionTokens: 300 });
const own = { prompt: () => 7, completion: () => 5 };
const good = { promptTokens: 100, completionTokens: 10, cacheReadTokens: 40, cacheWriteTokens: 20, reasoningTokens: 4 };

describe('chat usage bounds', () => {
  test("the completion bound: max_tokens, else the endpoint's maximum output, never past the context", () => {
    expect(chatUsageLimits(endpoint, 10)).toEqual({ prompt: 1000, completion: 10 });
    expect(chatUsageLimits(endpoint, undefined)).toEqual({ prompt: 1000, completion: 300 });
    expect(chatUsageLimits(endpoint, 5000)).toEqual({ prompt: 1000, completion: 300 });
    expect(chatUsageLimits({ ...endpoint, maxCompletionTokens: null }, undefined)).toEqual({
      prompt: 1000,
      completion: 1000,
    });
  });

  test('usage within bounds is taken as reported', () => {
    expect(boundChatUsage(good, chatUsageLimits(endpoint, 10), own)).toEqual({
      usage: good,
      estimated: false,
      replaced: [],
    });
  });

  test("no usage at all: the gateway's count, estimated, nothing named as replaced", () => {
    expect(boundChatUsage(null, chatUsageLimits(endpoint, 10), own)).toEqual({
      usage: { promptTokens: 7, completionTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      estimated: true,
      replaced: [],
    });
  });

  test.each([
    [
      'cached tokens above the prompt (1e9 with max_tokens 10)',
      { cacheReadTokens: 1e9 },
      { cacheReadTokens: 0 },
      ['cacheReadTokens'],
    ],
    ['a completion above max_tokens (1e12)', { completionTokens: 1e12 }, { completionTokens: 5 }, ['completionTokens']],
    [
      'a prompt above the context',
      { promptTokens: 1001 },
      { promptTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      ['promptTokens', 'cacheReadTokens', 'cacheWriteTokens'],
    ],
    ['a negative completion', { completionTokens: -3 }, { completionTokens: 5 }, ['completionTokens']],
    [
      'a fractional prompt',
      { promptTokens: 99.5 },
      { promptTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      ['promptTokens', 'cacheReadTokens', 'cacheWriteTokens'],
    ],
    ['1e300 cache writes', { cacheWriteTokens: 1e300 }, { cacheWriteTokens: 0 }, ['cacheWriteTokens']],
    ['NaN (a count that was not a number)', { completionTokens: NaN }, { completionTokens: 5 }, ['completionTokens']],
    [
      'Infinity (1e999 in JSON)',
      { promptTokens: Infinity },
      { promptTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0 },
      ['promptTokens', 'cacheReadTokens', 'cacheWriteTokens'],
    ],
    [
      'cache reads and writes together above the prompt',
      { cacheReadTokens: 70, cacheWriteTokens: 40 },
      { cacheReadTokens: 70, cacheWriteTokens: 0 },
      ['cacheWriteTokens'],
    ],
    ['reasoning above the completion', { reasoningTokens: 11 }, { reasoningTokens: 0 }, ['reasoningTokens']],
  ])('%s is replaced and named; the record is estimated', (_, bad, fixed, fields) => {
    const r = boundChatUsage({ ...good, ...bad }, chatUsageLimits(endpoint, 10), own);
    expect(r).toEqual({ usage: { ...good, ...fixed }, estimated: true, replaced: fields });
  });

  test('a count is a safe integer within its bound', () => {
    expect([0, 5, 10].map((n) => isCountWithin(n, 10))).toEqual([true, true, true]);
    expect([-1, 11, 1.5, NaN, Infinity, 2 ** 53, '5', null].map((n) => isCountWithin(n, 2 ** 60))).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  test('a cost above its reservation, or not finite, is the reservation; a negative one is 0', () => {
    expect(withinReservation(0.5, 1)).toEqual({ usd: 0.5, capped: false });
    expect(withinReservation(300_000, 1)).toEqual({ usd: 1, capped: true });
    expect(withinReservation(NaN, 1)).toEqual({ usd: 1, capped: true });
    expect(withinReservation(-2, 1)).toEqual({ usd: 0, capped: false });
  });
});

describe('the parsers keep bad counts for the bounds to see', () => {
  test('OpenAI: negative, fractional and non-number counts reach the bounds instead of reading as 0', () => {
    const u = openaiUsage({
      prompt_tokens: 5,
      completion_tokens: -3,
      prompt_tokens_details: { cached_tokens: 1.5 },
      completion_tokens_details: { reasoning_tokens: 'x' },
    });
    expect(u).toEqual({
      promptTokens: 5,
      completionTokens: -3,
      cacheReadTokens: 1.5,
      cacheWriteTokens: 0,
      reasoningTokens: NaN,
    });
    expect(boundChatUsage(u, chatUsageLimits(endpoint, 10), own).replaced).toEqual([
      'completionTokens',
      'cacheReadTokens',
      'reasoningTokens',
    ]);
    expect(openaiUsage({ total_tokens: 3 })).toBeNull();
  });

  test('Anthropic: a bad input or cache part makes the prompt unknown, never a smaller plausible sum', () => {
    expect(
      anthropicUsage({
        input_tokens: 10,
        cache_read_input_tokens: 4,
        cache_creation_input_tokens: 2,
        output_tokens: 3,
      }),
    ).toMatchObject({ promptTokens: 16, cacheReadTokens: 4, cacheWriteTokens: 2 });
    const u = anthropicUsage({ input_tokens: 1_000_010, cache_read_input_tokens: -1_000_000, output_tokens: 3 });
    expect(u!.promptTokens).toBeNaN();
    expect(boundChatUsage(u, chatUsageLimits(endpoint, 10), own)).toMatchObject({
      usage: { promptTokens: 7, cacheReadTokens: 0, completionTokens: 3 },
      replaced: ['promptTokens', 'cacheReadTokens'],
    });
  });
});

describe('embeddings usage bounds', () => {
  const norm = normaliseInput('hello world'); // 11 bytes + 4 markers: at most 15 tokens
  const count = () => 2;

  test('a plausible count is taken; a missing or zero one is counted', () => {
    expect(chargedUsage({ promptTokens: 3, imageCount: null }, norm, 8192, count)).toEqual({
      tokens: 3,
      images: 0,
      estimated: false,
      replaced: [],
    });
    expect(chargedUsage({ promptTokens: null, imageCount: null }, norm, 8192, count)).toEqual({
      tokens: 2,
      images: 0,
      estimated: true,
      replaced: [],
    });
    expect(chargedUsage({ promptTokens: 0, imageCount: null }, norm, 8192, count)).toEqual({
      tokens: 2,
      images: 0,
      estimated: true,
      replaced: [],
    });
  });

  test('a count above what the input can hold is capped at it; one that is not a count is counted; both are named', () => {
    expect(chargedUsage({ promptTokens: 1_000_000, imageCount: null }, norm, 8192, count)).toEqual({
      tokens: 15,
      images: 0,
      estimated: true,
      replaced: ['promptTokens'],
    });
    for (const bad of [-5, 2.5, NaN, 1e300]) {
      expect(chargedUsage({ promptTokens: bad, imageCount: null }, norm, 8192, count)).toEqual({
        tokens: 2,
        images: 0,
        estimated: true,
        replaced: ['promptTokens'],
      });
    }
  });

  test('more images than the input has are not billed', () => {
    const withImage = normaliseInput([
      { content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ]);
    expect(chargedUsage({ promptTokens: 10, imageCount: 1 }, withImage, 8192, count)).toMatchObject({
      images: 1,
      estimated: false,
    });
    expect(chargedUsage({ promptTokens: 10, imageCount: 1e9 }, withImage, 8192, count)).toMatchObject({
      images: 1,
      estimated: true,
      replaced: ['imageCount'],
    });
  });
});
