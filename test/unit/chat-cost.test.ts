/** What a chat call reserves (its worst case) and what it settles to (its usage at each price). */
import { chatCost, maxCompletionOn, worstCaseCost } from '../../src/chat/cost';
import { chatEndpoint } from '../helpers/chat-endpoint';

const priced = chatEndpoint({
  contextLength: 1000,
  maxCompletionTokens: 300,
  pricing: {
    prompt: 2e-6,
    completion: 8e-6,
    image: 0,
    request: 0,
    cacheRead: 0.5e-6,
    cacheWrite: 2.5e-6,
    text: { prompt: '0.000002', completion: '0.000008', image: '0', request: '0' },
  },
});

describe('chat cost', () => {
  test("the largest completion: the client's bound, else the endpoint's limit capped by the context the prompt leaves", () => {
    expect(maxCompletionOn(priced, 100, 50)).toBe(50);
    expect(maxCompletionOn(priced, 100, undefined)).toBe(300);
    expect(maxCompletionOn(priced, 900, undefined)).toBe(100);
    expect(maxCompletionOn({ ...priced, maxCompletionTokens: null }, 100, undefined)).toBe(900);
    expect(maxCompletionOn(priced, 5000, undefined)).toBe(1);
  });

  test('the worst case: the prompt at the dearest prompt price plus the largest completion', () => {
    expect(worstCaseCost(priced, 100, 50)).toBeCloseTo(100 * 2.5e-6 + 50 * 8e-6, 12);
    expect(worstCaseCost(priced, 100, undefined)).toBeCloseTo(100 * 2.5e-6 + 300 * 8e-6, 12);
  });

  test('the actual cost: cache reads and writes at their own prices, the rest at the prompt price', () => {
    const usage = {
      promptTokens: 100,
      completionTokens: 10,
      cacheReadTokens: 40,
      cacheWriteTokens: 20,
      reasoningTokens: 0,
    };
    expect(chatCost(priced, usage)).toBeCloseTo(40 * 2e-6 + 40 * 0.5e-6 + 20 * 2.5e-6 + 10 * 8e-6, 12);
    const noCachePrices = { ...priced, pricing: { ...priced.pricing, cacheRead: null, cacheWrite: null } };
    expect(chatCost(noCachePrices, usage)).toBeCloseTo(100 * 2e-6 + 10 * 8e-6, 12);
  });
});
