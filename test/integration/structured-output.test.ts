/**
 * Structured output on every format (issue 58 item 7): `response_format` (chat) and `text.format`
 * (Responses) reach an Anthropic endpoint as structured outputs (`output_config.format`) where the
 * catalog lists `structured_outputs`, and leave out the Anthropic endpoints that cannot honour them
 * (a 400 naming the field when no candidate is left), so a client that asked for JSON never gets prose.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({});
});
afterAll(() => h.close());
beforeEach(() => h.fleet.resetAll());

const schema = {
  type: 'object',
  properties: { echo: { type: 'string' } },
  required: ['echo'],
  additionalProperties: false,
};
const jsonSchema = { type: 'json_schema', json_schema: { name: 'echo', schema, strict: true } };
const chat = (model: string, over: Record<string, unknown>) =>
  request(h.gw.app)
    .post('/api/v1/chat/completions')
    .set('Authorization', `Bearer ${h.key}`)
    .send({ model, messages: [{ role: 'user', content: 'as json please' }], ...over });
const anthropicCalls = () => h.fleet.fakes.anthropic!.calls;

test('json_schema to Claude 4.5 goes as output_config.format, and the answer is the JSON', async () => {
  const res = await chat('anthropic/claude-sonnet-4.5', { response_format: jsonSchema });
  expect(res.status).toBe(200);
  expect(anthropicCalls()[0]!.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  expect(JSON.parse(res.body.choices[0].message.content)).toEqual({ echo: 'as json please' });
});

test('structured outputs and adaptive effort share output_config', async () => {
  const res = await chat('anthropic/claude-sonnet-4.6', { response_format: jsonSchema, reasoning: { effort: 'low' } });
  expect(res.status).toBe(200);
  expect(anthropicCalls()[0]!.body.output_config).toEqual({ effort: 'low', format: { type: 'json_schema', schema } });
});

test('a Claude without structured outputs is no candidate: a 400 naming response_format, nothing sent', async () => {
  const res = await chat('anthropic/claude-sonnet-4', { response_format: jsonSchema });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain('body.response_format');
  expect(anthropicCalls()).toHaveLength(0);
});

test('json_object has no Anthropic form: a 400 alone, a fallback model serves with models', async () => {
  const alone = await chat('anthropic/claude-sonnet-4.5', { response_format: { type: 'json_object' } });
  expect(alone.status).toBe(400);
  expect(alone.body.error.metadata).toBeDefined();
  const withFallback = await chat('anthropic/claude-sonnet-4.5', {
    models: ['openai/gpt-4o-mini'],
    response_format: { type: 'json_object' },
  });
  expect(withFallback.status).toBe(200);
  expect(withFallback.body.model).toBe('openai/gpt-4o-mini');
  expect(anthropicCalls()).toHaveLength(0);
});

test("Responses' text.format reaches Claude as structured outputs", async () => {
  const res = await request(h.gw.app)
    .post('/api/v1/responses')
    .set('Authorization', `Bearer ${h.key}`)
    .send({
      model: 'anthropic/claude-haiku-4.5',
      input: 'as json please',
      text: { format: { type: 'json_schema', name: 'echo', schema, strict: true } },
    });
  expect(res.status).toBe(200);
  expect(anthropicCalls()[0]!.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
  expect(JSON.parse(res.body.output[0].content[0].text)).toEqual({ echo: 'as json please' });
});
