/**
 * A refusal lists the problems that explain it (issue 61 item 8): for a failed anyOf/oneOf, the
 * problems of the branch the value matched best, not every branch's (one wrong content part of a
 * chat message once came out as 30 problems). Through the compiled request schemas, as the
 * validation middleware uses them.
 */
import { getValidator, schemaGraph } from '../../src/validation/schemas';
import { toIssues } from '../../src/validation/ajv';
import { SchemaGraph } from '../../src/validation/explain';
import type { RequestSchemaId } from '../../src/wire';

/** The explained issues of `value` against `id` (which must refuse it). */
function issuesOf(id: RequestSchemaId, value: unknown) {
  const { all } = getValidator(id);
  expect(all(value)).toBe(false);
  return toIssues('body', schemaGraph().explain(all.errors ?? []));
}

const chat = (message: unknown, extra: Record<string, unknown> = {}) =>
  issuesOf('chat.create.body', { model: 'm', messages: [message], ...extra });

test.each([
  [
    'a user part with the wrong URL scheme: only the URL',
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x' } }] },
    [{ path: 'body.messages.0.content.0.image_url.url', message: 'must match pattern "^(https?://|data:)"' }],
  ],
  [
    'a part of no known type: the types there are',
    { role: 'user', content: [{ type: 'txt', text: 'hi' }] },
    [{ path: 'body.messages.0.content.0.type', message: 'must be "text", "image_url", "file" or "input_audio"' }],
  ],
  [
    'a text part without its text',
    { role: 'user', content: [{ type: 'text' }] },
    [{ path: 'body.messages.0.content.0.text', message: "must have required property 'text'" }],
  ],
  [
    'an unknown role: every role',
    { role: 'usr', content: 'x' },
    [{ path: 'body.messages.0.role', message: 'must be "system", "developer", "user", "assistant" or "tool"' }],
  ],
  [
    'a tool message without its call id',
    { role: 'tool', content: 'x' },
    [{ path: 'body.messages.0.tool_call_id', message: "must have required property 'tool_call_id'" }],
  ],
  [
    'a number as a user message content',
    { role: 'user', content: 5 },
    [{ path: 'body.messages.0.content', message: 'must be a string or an array' }],
  ],
  [
    'a number as an assistant message content (which may be null)',
    { role: 'assistant', content: 5 },
    [{ path: 'body.messages.0.content', message: 'must be a string, an array or null' }],
  ],
  [
    'a wrong text in an assistant part (two routes to the same schema): reported once',
    { role: 'assistant', content: [{ type: 'text', text: 5 }] },
    [{ path: 'body.messages.0.content.0.text', message: 'must be string' }],
  ],
])('%s', (_label, message, expected) => {
  expect(chat(message)).toEqual(expected);
});

test('problems in several parts are each reported once, from the branch each part meant', () => {
  const parts = [
    { type: 'text', text: 'a' },
    { type: 'image_url', image_url: {} },
    { type: 'input_audio', input_audio: { data: '' } },
  ];
  expect(chat({ role: 'user', content: parts })).toEqual([
    { path: 'body.messages.0.content.1.image_url.url', message: "must have required property 'url'" },
    { path: 'body.messages.0.content.2.input_audio.format', message: "must have required property 'format'" },
    { path: 'body.messages.0.content.2.input_audio.data', message: 'must NOT have fewer than 1 characters' },
  ]);
});

test('alternatives outside messages: a value of no accepted kind says which kinds are accepted', () => {
  const issues = chat(
    { role: 'user', content: 'x' },
    { stop: 5, tool_choice: 'bogus', response_format: { type: 'json_schema' } },
  );
  expect(issues).toEqual([
    { path: 'body.stop', message: 'must be a string, an array or null' },
    { path: 'body.response_format.json_schema', message: "must have required property 'json_schema'" },
    { path: 'body.tool_choice', message: 'must be "none", "auto", "required" or an object' },
  ]);
});

test.each([['']])('an empty stop value (%j) is refused, alone or in a list', (stop) => {
  const expected = [{ path: 'body.stop', message: 'must NOT have fewer than 1 characters' }];
  expect(chat({ role: 'user', content: 'x' }, { stop })).toEqual(expected);
  expect(chat({ role: 'user', content: 'x' }, { stop: ['END', stop] })).toEqual([
    { path: 'body.stop.1', message: expected[0]!.message },
  ]);
});

test('non-empty stop values pass, whitespace-only ones included (a common stop on OpenAI-format upstreams)', () => {
  const { all } = getValidator('chat.create.body');
  for (const stop of ['END', '\nUser:', '\n', ['###', ' x ', ' \t '], null])
    expect(all({ model: 'm', messages: [{ role: 'user', content: 'x' }], stop })).toBe(true);
});

test('errors without their schemas (a validator compiled without verbose) keep the deepest problem only', () => {
  const { firstError } = getValidator('chat.create.body');
  expect(
    firstError({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x' } }] }],
    }),
  ).toBe(false);
  const explained = new SchemaGraph([]).explain(firstError.errors ?? []);
  expect(explained).toHaveLength(1);
  expect(explained[0]!.instancePath).toBe('/messages/0/content/0/image_url/url');
});

test("a oneOf that several branches match keeps ajv's own problem", () => {
  const schema = { $id: 'explain.one', oneOf: [{ type: 'number' }, { type: 'integer' }] };
  const graph = new SchemaGraph([schema]);
  const error = {
    instancePath: '',
    schemaPath: '#/oneOf',
    keyword: 'oneOf',
    params: { passingSchemas: [0, 1] },
    message: 'must match exactly one schema in oneOf',
    schema: schema.oneOf,
    parentSchema: schema,
  };
  expect(graph.explain([error])).toEqual([error]);
});
