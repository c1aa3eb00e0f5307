/**
 * The Responses door's stream translator on canonical events no fake upstream sends yet
 * (reasoning with a summary and encrypted content, parallel tool calls, a custom tool call, a
 * length stop): every event's `sequence_number` in order, and the `openai` SDK's own accumulator,
 * fed the events, rebuilds exactly the response that `response.completed` / `.incomplete` carries.
 */
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { EventTranslator, StreamEvent } from '../../src/inference/exchange';
import { ResponsesStream } from '../../src/responses/stream';
import { toolSetOf } from '../../src/responses/tools';

const head = { id: 'gen-1', model: 'openai/gpt-4.1-mini', provider: 'OpenAI', created: 1767225600 };
const usage = { promptTokens: 10, completionTokens: 7, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: 3 };

/** A translator that hands out `events` on the first push. */
function scripted(events: StreamEvent[]): EventTranslator {
  return { push: () => events.splice(0), end: () => [], done: true, upstreamId: 'up-1' };
}

/** Run `events` through the door's stream; the parsed SSE events, the closing ones included. */
function run(events: StreamEvent[], tools = toolSetOf(undefined)): ResponseStreamEvent[] {
  const s = new ResponsesStream(scripted(events), head, tools, '');
  const text = s.push(Buffer.from('x')).join('') + s.end().join('') + s.finish(head, usage, 0.25);
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((raw) => {
      const [event, data] = raw.split('\n');
      const parsed = JSON.parse(data!.slice(6)) as ResponseStreamEvent;
      expect(event).toBe(`event: ${parsed.type}`);
      return parsed;
    });
}

function accumulated(events: ResponseStreamEvent[]): Response {
  let snapshot: Response | undefined;
  for (const e of events) snapshot = accumulateResponse(e, snapshot);
  return snapshot!;
}

test('reasoning summary, then text, then two tool calls: consistent items, the SDK rebuilds the final response', () => {
  const events = run([
    { type: 'reasoning', text: 'Think', format: 'openai-responses-v1' },
    { type: 'reasoning', text: 'ing.', encrypted: 'opaque', format: 'openai-responses-v1' },
    { type: 'text', text: 'Hello ' },
    { type: 'text', text: 'there' },
    { type: 'tool_call_start', index: 0, id: 'call_a', name: 'a' },
    { type: 'tool_call_delta', index: 0, arguments: '{"x":' },
    { type: 'tool_call_delta', index: 0, arguments: '1}' },
    { type: 'tool_call_start', index: 1, id: 'call_b', name: 'b' },
    { type: 'tool_call_delta', index: 1, arguments: '{}' },
    { type: 'stop', reason: 'tool_calls', native: 'tool_calls' },
    { type: 'usage', usage },
  ]);
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
  const last = events.at(-1)!;
  if (last.type !== 'response.completed') throw new Error(last.type);
  expect(last.response.output).toMatchObject([
    { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking.' }], encrypted_content: 'opaque' },
    { type: 'message', content: [{ type: 'output_text', text: 'Hello there' }] },
    { type: 'function_call', call_id: 'call_a', name: 'a', arguments: '{"x":1}', status: 'completed' },
    { type: 'function_call', call_id: 'call_b', name: 'b', arguments: '{}' },
  ]);
  expect(last.response.usage).toEqual({
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 2 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 3 },
    total_tokens: 17,
    cost: 0.25,
  });
  const rebuilt = accumulated(events.slice(0, -1));
  expect(rebuilt.output).toEqual(last.response.output);
  expect(events.filter((e) => e.type === 'response.reasoning_summary_text.delta')).toHaveLength(2);
});

test('a custom tool call streams its input (not its JSON wrapper) and ends as custom_tool_call', () => {
  const tools = toolSetOf([{ type: 'custom', name: 'apply_patch', format: { type: 'text' } }]);
  const events = run(
    [
      { type: 'tool_call_start', index: 0, id: 'call_p', name: 'apply_patch' },
      { type: 'tool_call_delta', index: 0, arguments: '{"input":"*** Begin' },
      { type: 'tool_call_delta', index: 0, arguments: ' Patch"}' },
      { type: 'stop', reason: 'tool_calls', native: 'tool_calls' },
    ],
    tools,
  );
  expect(events.map((e) => e.type)).not.toContain('response.function_call_arguments.delta');
  expect(events.find((e) => e.type === 'response.custom_tool_call_input.done')).toMatchObject({
    input: '*** Begin Patch',
  });
  const last = events.at(-1)!;
  if (last.type !== 'response.completed') throw new Error(last.type);
  expect(last.response.output).toEqual([
    expect.objectContaining({
      type: 'custom_tool_call',
      call_id: 'call_p',
      name: 'apply_patch',
      input: '*** Begin Patch',
    }),
  ]);
  expect(accumulated(events.slice(0, -1)).output).toEqual(last.response.output);
});

test('a length stop ends with response.incomplete (reason max_output_tokens)', () => {
  const events = run([
    { type: 'text', text: 'cut' },
    { type: 'stop', reason: 'length', native: 'length' },
  ]);
  expect(events.at(-1)).toMatchObject({
    type: 'response.incomplete',
    response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
  });
});

test('fail after content: the open item is closed, then response.failed with a string code', () => {
  const s = new ResponsesStream(scripted([{ type: 'text', text: 'partial' }]), head, toolSetOf(undefined), '');
  const text = s.push(Buffer.from('x')).join('') + s.fail(head, 502, 'upstream broke');
  const last = JSON.parse(text.trim().split('\n').at(-1)!.slice(6)) as Record<string, unknown>;
  expect(last).toMatchObject({
    type: 'response.failed',
    response: { status: 'failed', error: { code: 'server_error', message: 'upstream broke' } },
  });
  expect(text).toContain('response.output_item.done');
});
