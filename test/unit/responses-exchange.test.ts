/**
 * The Responses door's way in: a body's instructions, message items, images, calls, outputs and
 * reasoning items in canonical form, and its tools (custom, namespace, hosted left out).
 */
import { exchangeOf } from '../../src/responses/exchange-in';
import { customInputOf, toolSetOf } from '../../src/responses/tools';
import type { ResponsesBody } from '../../src/responses/types';

test('instructions first, roles kept, an assistant turn gathers reasoning, text and calls; outputs are tool results', () => {
  const body = {
    instructions: 'be brief',
    reasoning: { effort: 'low' },
    max_output_tokens: 50,
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
        ],
      },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'hmm' }], encrypted_content: 'enc' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'calling' }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: 'PATCH' },
      { type: 'function_call_output', call_id: 'c1', output: 'one' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
    ],
  } as unknown as ResponsesBody;
  const x = exchangeOf(body, toolSetOf(undefined), true);
  expect(x).toMatchObject({ stream: true, maxTokens: 50, reasoning: { enabled: true, effort: 'low' } });
  expect(x.messages).toEqual([
    { role: 'system', parts: [{ type: 'text', text: 'be brief' }] },
    { role: 'developer', parts: [{ type: 'text', text: 'dev' }] },
    {
      role: 'user',
      parts: [
        { type: 'text', text: 'look' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' }, detail: 'low' },
      ],
    },
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', format: 'openai-responses-v1', id: 'rs_1', summary: true, text: 'hmm', encrypted: 'enc' },
        { type: 'text', text: 'calling' },
        { type: 'tool_call', id: 'c1', name: 'f', arguments: '{}' },
        { type: 'tool_call', id: 'c2', name: 'apply_patch', arguments: '{"input":"PATCH"}' },
      ],
    },
    {
      role: 'tool',
      parts: [
        { type: 'tool_result', callId: 'c1', content: 'one' },
        { type: 'tool_result', callId: 'c2', content: [{ type: 'text', text: 'two' }] },
      ],
    },
  ]);
});

test('tools: functions kept, custom as one string argument with its grammar, namespaces joined, hosted left out', () => {
  const set = toolSetOf([
    { type: 'web_search' },
    { type: 'function', name: 'f', parameters: { type: 'object' }, strict: true },
    { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
    { type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'g' }] },
    { type: 'tool_search' },
  ]);
  expect(set.leftOut).toEqual(['web_search', 'tool_search']);
  expect(set.tools.map((t) => t.name)).toEqual(['f', 'apply_patch', 'ns__g']);
  expect(set.tools[1]!.parameters).toMatchObject({ required: ['input'] });
  expect(set.tools[1]!.description).toContain('start: "x"');
  expect(set.origin('ns__g')).toEqual({ kind: 'function', name: 'g', namespace: 'ns' });
  expect(set.origin('apply_patch')).toEqual({ kind: 'custom', name: 'apply_patch' });
  expect(set.origin('unknown')).toEqual({ kind: 'function', name: 'unknown' });
});

test.each([
  ['{"input":"a"}', 'a'],
  ['{"text":"b"}', 'b'],
  ['{"a":"x","b":"y"}', '{"a":"x","b":"y"}'],
  ['not json', 'not json'],
])('a custom call input from %s is %s (never dropped)', (args, input) => {
  expect(customInputOf(args)).toBe(input);
});
