/**
 * StreamedOutput (src/providers/openai/responses-output.ts): what a passed-through Responses
 * stream generated, rebuilt from its events as the client's accumulator would (items done as sent,
 * the rest from their deltas, marked incomplete), its meter's bound read off the raw deltas (escapes
 * in full, so never below the text's bytes), and the gateway's count.
 */
import { StreamedOutput } from '../../src/providers/openai/responses-output';

const ev = (type: string, data: Record<string, unknown>) => JSON.stringify({ type, sequence_number: 0, ...data });

test('items: done items as sent, an open message and an open call built from their deltas', () => {
  const out = new StreamedOutput();
  const done = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'hm' }] };
  out.added(
    ev('response.output_item.added', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
  );
  out.delta(ev('response.reasoning_summary_text.delta', { output_index: 0, summary_index: 0, delta: 'h' }));
  out.itemDone(0, done, null);
  out.added(ev('response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', content: [] } }));
  for (const delta of ['caf', 'é "', 'x'])
    out.delta(ev('response.output_text.delta', { output_index: 1, content_index: 0, delta }));
  out.added(
    ev('response.output_item.added', {
      output_index: 2,
      item: { id: 'fc_1', type: 'function_call', name: 'lookup', arguments: '' },
    }),
  );
  out.delta(ev('response.function_call_arguments.delta', { output_index: 2, delta: '{"a":' }));
  expect(out.items()).toEqual([
    done,
    { id: 'msg_1', type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'café "x' }] },
    { id: 'fc_1', type: 'function_call', name: 'lookup', status: 'incomplete', arguments: '{"a":' },
  ]);
  // The bound: every delta's bytes as written (`é` 2, `\"` 2) and the call's name, never below the text.
  const text = ['h', 'caf', 'é "', 'x', '{"a":', 'lookup'].join('');
  expect(out.bound).toBeGreaterThanOrEqual(Buffer.byteLength(text));
  expect(out.bound).toBeLessThan(Buffer.byteLength(text) + 8);
  expect(out.tokens()).toBeGreaterThan(0);
});

test('a delta event without a delta string counts whole; events out of range are ignored', () => {
  const out = new StreamedOutput();
  const odd = ev('response.output_text.delta', { output_index: 5000, content: 'no delta here' });
  out.delta(odd);
  expect(out.bound).toBe(Buffer.byteLength(odd));
  expect(out.items()).toEqual([]);
});
