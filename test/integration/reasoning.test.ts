/**
 * Reasoning end to end (issues 57 and 58): the one reasoning control in (chat's `reasoning` and
 * `reasoning_effort`, Messages' `thinking`, Responses' `reasoning`) mapped to each upstream
 * (OpenAI's `reasoning_effort` only where the catalog lists `reasoning`, Anthropic's thinking
 * budget), reasoning out the same whole and streamed (`reasoning`, `reasoning_details`,
 * `reasoning_tokens`), DeepSeek's `reasoning_content` normalised, `exclude`, and a two-turn tool
 * conversation whose Claude signatures come back byte for byte.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { FAKE_REDACTED, FAKE_SIGNATURE } from '../fakes/chat-wires';

const GPT = 'openai/gpt-5.5';
const MINI = 'openai/gpt-4o-mini';
const SONNET = 'anthropic/claude-sonnet-4.5';
const DEEPSEEK = 'deepseek/deepseek-v3.2';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({
    overrides: { chat: { attemptTimeoutMs: 2000, deadlineMs: 5000 }, breaker: { failureThreshold: 1000 } },
  });
});
afterAll(() => h.close());
beforeEach(() => h.fleet.resetAll());

const chat = (body: Record<string, unknown>) =>
  request(h.gw.app).post('/api/v1/chat/completions').set('Authorization', `Bearer ${h.key}`).send(body);
const ask = (model: string, over: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'why is the sky blue' }],
  ...over,
});
/** The body the upstream of `slug` got last. */
const sent = (slug: string) => {
  const calls = h.fleet.fakes[slug]!.calls;
  return calls[calls.length - 1]!.body;
};

interface Delta {
  content?: string;
  reasoning?: string;
  reasoning_details?: Array<Record<string, unknown>>;
}
/** A streamed chat answer's deltas, and its usage chunk. */
async function streamed(body: Record<string, unknown>) {
  const res = await chat({ ...body, stream: true });
  expect(res.status).toBe(200);
  const chunks = res.text
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)) as { choices: Array<{ delta: Delta }>; usage?: Record<string, unknown> });
  const deltas = chunks.flatMap((c) => c.choices.map((x) => x.delta));
  return {
    deltas,
    reasoning: deltas.map((d) => d.reasoning ?? '').join(''),
    details: deltas.flatMap((d) => d.reasoning_details ?? []),
    usage: chunks.find((c) => c.usage)?.usage as { completion_tokens_details: { reasoning_tokens: number } },
  };
}

describe('reasoning in', () => {
  test('an OpenAI reasoning endpoint gets reasoning_effort (never the reasoning object) and reports reasoning tokens', async () => {
    const res = await chat(ask(GPT, { reasoning: { effort: 'high' } }));
    expect(res.status).toBe(200);
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'high' });
    expect(sent('openai')).not.toHaveProperty('reasoning');
    expect(res.body.usage.completion_tokens_details.reasoning_tokens).toBe(8);
    await chat(ask(GPT, { reasoning_effort: 'low' }));
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'low' });
  });

  test('a budget becomes the effort of its share of max_tokens', async () => {
    await chat(ask(GPT, { max_tokens: 1000, reasoning: { max_tokens: 900 } }));
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'high' });
    await chat(ask(GPT, { max_tokens: 1000, reasoning: { max_tokens: 300 } }));
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'low' });
    await chat(ask(GPT, { reasoning: { enabled: false } }));
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'none' });
    await chat(ask(GPT));
    expect(sent('openai')).not.toHaveProperty('reasoning_effort');
  });

  test('an endpoint without reasoning gets no reasoning field; with require_parameters it is no candidate', async () => {
    const res = await chat(ask(MINI, { reasoning: { effort: 'high' } }));
    expect(res.status).toBe(200);
    expect(sent('openai')).not.toHaveProperty('reasoning_effort');
    h.fleet.resetAll();
    const strict = await chat(ask(MINI, { reasoning: { effort: 'high' }, provider: { require_parameters: true } }));
    expect(strict.status).toBe(404);
    expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
  });

  test('Anthropic gets a thinking budget below max_tokens, without temperature', async () => {
    const res = await chat(ask(SONNET, { max_tokens: 4000, temperature: 0.5, reasoning: { effort: 'high' } }));
    expect(res.status).toBe(200);
    expect(sent('anthropic')).toMatchObject({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 3200 } });
    expect(sent('anthropic')).not.toHaveProperty('temperature');
    await chat(ask(SONNET, { max_tokens: 4000, reasoning: { max_tokens: 2000 } }));
    expect(sent('anthropic')).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 } });
    await chat(ask(SONNET, { max_tokens: 4000, temperature: 0.5 }));
    expect(sent('anthropic')).toMatchObject({ temperature: 0.5 });
    expect(sent('anthropic')).not.toHaveProperty('thinking');
  });

  test('reasoning with max_tokens too small for a thinking budget is a 400 naming it when only Anthropic serves', async () => {
    const res = await chat(ask(SONNET, { max_tokens: 1000, reasoning: { effort: 'low' } }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('max_tokens');
    expect(h.fleet.fakes.anthropic!.calls).toHaveLength(0);
  });
});

describe('adaptive Claude (4.6 and later)', () => {
  test('gets thinking: adaptive with an effort, never a budget; a small max_tokens is fine', async () => {
    const res = await chat(ask('anthropic/claude-sonnet-4.6', { max_tokens: 500, reasoning: { effort: 'xhigh' } }));
    expect(res.status).toBe(200);
    expect(sent('anthropic')).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } });
    await chat(ask('anthropic/claude-sonnet-4.6', { max_tokens: 4000, reasoning: { max_tokens: 1000 } }));
    expect(sent('anthropic')).toMatchObject({ output_config: { effort: 'low' } });
  });

  test('Opus 5.5 (claude-opus-5-5 on /messages too) never gets sampling parameters, its thinking being always on', async () => {
    const res = await chat(ask('anthropic/claude-opus-5.5', { max_tokens: 500, temperature: 0.3, top_p: 0.5 }));
    expect(res.status).toBe(200);
    expect(sent('anthropic')).not.toHaveProperty('temperature');
    expect(sent('anthropic')).not.toHaveProperty('top_p');
    const messages = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('x-api-key', h.key)
      .send({ model: 'claude-opus-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(messages.status).toBe(200);
    expect(messages.body.model).toBe('anthropic/claude-opus-5.5');
    expect(sent('anthropic')).toMatchObject({ model: 'claude-opus-5-5' });
  });

  test('Opus 5.5 cannot be forced to call a tool: a 400 naming tool_choice, on chat and Responses, before any call', async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];
    const forced = await chat(ask('anthropic/claude-opus-5.5', { tools, tool_choice: 'required' }));
    expect(forced.status).toBe(400);
    expect(JSON.stringify(forced.body)).toContain('tool_choice');
    const responses = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', `Bearer ${h.key}`)
      .send({
        model: 'anthropic/claude-opus-5.5',
        input: 'hi',
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }],
        tool_choice: { type: 'function', name: 'f' },
      });
    expect(responses.status).toBe(400);
    expect(h.fleet.fakes.anthropic!.calls).toHaveLength(0);
    const auto = await chat(ask('anthropic/claude-opus-5.5', { tools, tool_choice: 'auto' }));
    expect(auto.status).toBe(200);
  });
});

describe('reasoning out, the same whole and streamed', () => {
  test("DeepSeek's reasoning_content becomes reasoning and a reasoning.text detail", async () => {
    const whole = await chat(ask(DEEPSEEK, { reasoning: { effort: 'medium' } }));
    expect(whole.status).toBe(200);
    const message = whole.body.choices[0].message;
    expect(message.reasoning).toBe('thinking about: why is the sky blue');
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', text: message.reasoning, format: 'unknown', index: 0 },
    ]);
    expect(message).not.toHaveProperty('reasoning_content');
    const s = await streamed(ask(DEEPSEEK, { reasoning: { effort: 'medium' } }));
    expect(s.reasoning).toBe(message.reasoning);
    expect(s.deltas.some((d) => 'reasoning_content' in d)).toBe(false);
    expect(s.usage.completion_tokens_details.reasoning_tokens).toBe(
      whole.body.usage.completion_tokens_details.reasoning_tokens,
    );
  });

  test("gpt-oss's reasoning as Groq writes it passes through, a detail added, whole and streamed", async () => {
    const body = ask('openai/gpt-oss-120b', { reasoning: { effort: 'low' }, provider: { only: ['groq'] } });
    const whole = await chat(body);
    expect(whole.status).toBe(200);
    expect(sent('groq')).toMatchObject({ reasoning_effort: 'low' });
    const message = whole.body.choices[0].message;
    expect(message.reasoning).toBe('thinking about: why is the sky blue');
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', text: message.reasoning, format: 'unknown', index: 0 },
    ]);
    expect((await streamed(body)).reasoning).toBe(message.reasoning);
  });

  test('Claude thinking: text with its signature, and redacted thinking as encrypted, whole and streamed', async () => {
    const body = ask(SONNET, {
      max_tokens: 4000,
      reasoning: { effort: 'medium' },
      messages: [{ role: 'user', content: 'please redact this' }],
    });
    const whole = await chat(body);
    expect(whole.status).toBe(200);
    const message = whole.body.choices[0].message;
    expect(message.reasoning).toBe('thinking about: please redact this');
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.encrypted', data: FAKE_REDACTED, format: 'anthropic-claude-v1', index: 0 },
      {
        type: 'reasoning.text',
        text: 'thinking about: please redact this',
        signature: FAKE_SIGNATURE,
        format: 'anthropic-claude-v1',
        index: 1,
      },
    ]);
    const s = await streamed(body);
    expect(s.reasoning).toBe(message.reasoning);
    expect(s.details.find((d) => d.type === 'reasoning.encrypted')).toMatchObject({ data: FAKE_REDACTED, index: 0 });
    expect(s.details.filter((d) => d.signature).map((d) => [d.signature, d.index])).toEqual([[FAKE_SIGNATURE, 1]]);
  });

  test('exclude hides the reasoning and still bills its tokens', async () => {
    const shown = await chat(ask(DEEPSEEK, { reasoning: { effort: 'high' } }));
    const hidden = await chat(ask(DEEPSEEK, { reasoning: { effort: 'high', exclude: true } }));
    expect(hidden.status).toBe(200);
    expect(hidden.body.choices[0].message).not.toHaveProperty('reasoning');
    expect(hidden.body.choices[0].message).not.toHaveProperty('reasoning_details');
    expect(hidden.body.usage.completion_tokens).toBe(shown.body.usage.completion_tokens);
    const s = await streamed(ask(SONNET, { max_tokens: 4000, reasoning: { effort: 'high', exclude: true } }));
    expect(s.reasoning).toBe('');
    expect(s.details).toEqual([]);
    expect(s.deltas.map((d) => d.content ?? '').join('')).toBe('echo: why is the sky blue');
  });
});

describe('a two-turn tool conversation with Claude', () => {
  const tools = [
    {
      type: 'function',
      function: { name: 'lookup', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
    },
  ];
  test('the reasoning_details sent back open the assistant turn byte for byte; without them Anthropic refuses', async () => {
    const first = { model: SONNET, max_tokens: 4000, reasoning: { effort: 'medium' }, tools };
    const turn1 = await chat({ ...first, messages: [{ role: 'user', content: 'look it up' }] });
    expect(turn1.status).toBe(200);
    const assistant = turn1.body.choices[0].message;
    expect(assistant.tool_calls).toHaveLength(1);
    const history = (withDetails: boolean) => [
      { role: 'user', content: 'look it up' },
      {
        role: 'assistant',
        content: null,
        tool_calls: assistant.tool_calls,
        ...(withDetails ? { reasoning_details: assistant.reasoning_details } : {}),
      },
      { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'blue light scatters' },
    ];
    const turn2 = await chat({ ...first, messages: history(true) });
    expect(turn2.status).toBe(200);
    expect(turn2.body.choices[0].message.content).toBe('result: blue light scatters');
    const sentTurn = (sent('anthropic').messages as Array<{ role: string; content: unknown[] }>)[1]!;
    expect(sentTurn.content[0]).toEqual({
      type: 'thinking',
      thinking: 'thinking about: look it up',
      signature: FAKE_SIGNATURE,
    });
    const without = await chat({ ...first, messages: history(false) });
    expect(without.status).not.toBe(200);
  });

  test('an OpenAI-format upstream never gets the reasoning sent back (it would refuse it)', async () => {
    const res = await chat({
      model: GPT,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: 'hello',
          reasoning: 'r',
          reasoning_details: [{ type: 'reasoning.text', text: 'r' }],
        },
        { role: 'user', content: 'again' },
      ],
    });
    expect(res.status).toBe(200);
    expect((sent('openai').messages as Array<Record<string, unknown>>)[1]).toEqual({
      role: 'assistant',
      content: 'hello',
    });
  });
});

describe('the other doors', () => {
  const messages = (body: Record<string, unknown>) =>
    request(h.gw.app).post('/api/v1/messages').set('x-api-key', h.key).send(body);
  test("Messages' thinking budget and output_config.effort reach an OpenAI upstream as reasoning_effort", async () => {
    const base = { model: GPT, max_tokens: 4000, messages: [{ role: 'user', content: 'hi' }] };
    expect((await messages({ ...base, thinking: { type: 'enabled', budget_tokens: 2000 } })).status).toBe(200);
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'medium' });
    await messages({ ...base, output_config: { effort: 'max' } });
    expect(sent('openai')).toMatchObject({ reasoning_effort: 'xhigh' });
    expect(sent('openai')).not.toHaveProperty('output_config');
  });

  test("an OpenAI-format model's reasoning is a thinking block on /messages", async () => {
    const res = await messages({
      model: DEEPSEEK,
      max_tokens: 4000,
      thinking: { type: 'adaptive' },
      messages: [{ role: 'user', content: 'hi there' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.content[0]).toEqual({ type: 'thinking', thinking: 'thinking about: hi there', signature: '' });
  });

  test("Responses' reasoning.effort becomes Claude's thinking, and its reasoning a reasoning item", async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', `Bearer ${h.key}`)
      .send({ model: SONNET, input: 'hi there', max_output_tokens: 4000, reasoning: { effort: 'low' } });
    expect(res.status).toBe(200);
    expect(sent('anthropic')).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(res.body.output[0]).toMatchObject({ type: 'reasoning' });
    expect(JSON.stringify(res.body.output[0])).toContain('thinking about: hi there');
  });
});
