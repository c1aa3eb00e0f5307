/**
 * A whole Anthropic message assembled from the Messages door's own stream: how a whole answer is
 * served when it was read from the upstream as a stream so that the budget could meter it
 * (budgets/slices.ts). As Anthropic's SDK accumulates a stream: `message_start` gives the message,
 * each block starts as its `content_block_start` says and grows by its deltas (text, thinking,
 * signature, citations, tool input JSON), and `message_delta` gives the stop and the usage.
 * @module
 */
import { asObject } from '../providers/parse';
import { parseJson } from '../providers/raw-json';
import { SseSplitter } from '../providers/sse';
import { inputOf } from './answer';
import type { StreamHead } from '../providers/chat-types';

type Json = Record<string, unknown>;

/** One block and the tool input JSON it has been sent so far. */
interface Block {
  block: Json;
  json: string | null;
}

function addDelta(b: Block, d: Json): void {
  const { block } = b;
  const append = (key: string, value: unknown) => {
    if (typeof value === 'string') block[key] = `${typeof block[key] === 'string' ? block[key] : ''}${value}`;
  };
  switch (d.type) {
    case 'text_delta':
      return append('text', d.text);
    case 'thinking_delta':
      return append('thinking', d.thinking);
    case 'signature_delta':
      if (typeof d.signature === 'string') block.signature = d.signature;
      return;
    case 'input_json_delta':
      if (typeof d.partial_json === 'string') b.json = (b.json ?? '') + d.partial_json;
      return;
    case 'citations_delta':
      block.citations = [...(Array.isArray(block.citations) ? (block.citations as unknown[]) : []), d.citation];
      return;
  }
}

/** The whole message's JSON from the Messages door's stream `events` (SSE text), named by `head` when no `message_start` does. */
export function assembleMessage(events: string, head: StreamHead): string {
  const sse = new SseSplitter();
  const { id, model } = head;
  let message: Json = { id, type: 'message', role: 'assistant', model, stop_reason: null, stop_sequence: null };
  const blocks = new Map<number, Block>();
  for (const e of [...sse.push(Buffer.from(events)), ...sse.end()]) {
    const data = asObject(parseJson(e.data));
    if (!data) continue;
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (e.event ?? data.type) {
      case 'message_start':
        message = { ...asObject(data.message) };
        break;
      case 'content_block_start':
        blocks.set(index, { block: { ...asObject(data.content_block) }, json: null });
        break;
      case 'content_block_delta': {
        const b = blocks.get(index);
        const d = asObject(data.delta);
        if (b && d) addDelta(b, d);
        break;
      }
      case 'message_delta':
        Object.assign(message, asObject(data.delta));
        message.usage = { ...asObject(message.usage), ...asObject(data.usage) };
        if (data.metadata !== undefined) message.metadata = data.metadata;
        break;
    }
  }
  const content = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, b]) => (b.json === null ? b.block : { ...b.block, input: inputOf(b.json) }));
  return JSON.stringify({ ...message, content, provider: head.provider });
}
