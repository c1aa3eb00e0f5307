/**
 * The Anthropic Messages door on the inference core: its plan input and job, and its view of an
 * adapter's answers: an Anthropic-format upstream's pass through (relabelled), any other's are
 * written from canonical form; streams close with `message_delta` (the billed usage) and
 * `message_stop`, or with Anthropic's `error` event.
 * @module
 */
import type { Door, DoorStream, DoorView } from '../inference/door';
import type { ChatAdapter, ChatStream } from '../providers/chat-types';
import { answerText, messageBody, relabelledMessage } from './answer';
import { MessagesEvents } from './events';
import { messagesJob } from './job';
import { messagesPlanInput } from './prompt';
import type { MessagesAsk } from './types';
import { blockStops, closingEvents, errorEvent, stopReasonOf } from './wire';
import { assembleMessage } from './assemble';
import { BUDGET_STOP } from '../budgets/slices';

/** How a stream's last events are written: which blocks are open, and the stop as the door tells it. */
interface Closable {
  /** What must precede the closing events (`message_start` when none went out). */
  preamble(): string;
  openBlocks(): number[];
  stop(): { reason: string | null; sequence: string | null };
}

/** `stream` with the door's closing events. */
function closing(stream: ChatStream, c: Closable): DoorStream {
  const closed = stream as DoorStream;
  closed.finish = (_head, usage, cost) => {
    const { reason, sequence } = c.stop();
    return c.preamble() + blockStops(c.openBlocks()) + closingEvents(reason, sequence, usage, cost);
  };
  closed.fail = (_head, code, message) => blockStops(c.openBlocks()) + errorEvent(code, message);
  closed.cut = (_head, usage, cost) =>
    c.preamble() + blockStops(c.openBlocks()) + closingEvents('max_tokens', null, usage, cost, BUDGET_STOP);
  return closed;
}

/** The view of an Anthropic-format adapter: its answers pass through. */
function passThroughView(adapter: ChatAdapter): DoorView | null {
  const pass = adapter.format === 'anthropic-messages' ? adapter.messagesPassThrough : undefined;
  if (!pass) return null;
  return {
    parse(body) {
      const native = pass.parseMessage(body);
      if (!native) return null;
      const { answer, message } = native;
      return {
        usage: answer.usage,
        finishReason: answer.stopReason,
        nativeFinishReason: answer.nativeStopReason,
        toolCalls: answer.parts.filter((p) => p.type === 'tool_call').length,
        upstreamId: answer.upstreamId,
        text: () => answerText(answer),
        render: (head, usage, cost) => relabelledMessage(head, message, usage, cost),
      };
    },
    stream(head) {
      const s = pass.createStream(head);
      return closing(s, {
        preamble: () => '',
        openBlocks: () => [...s.openBlocks],
        stop: () => ({ reason: s.stopReason, sequence: s.stopSequence }),
      });
    },
  };
}

/** The view of any other adapter: canonical answers written in Anthropic's shape. */
function canonicalView(adapter: ChatAdapter): DoorView {
  return {
    parse(body) {
      const answer = adapter.parseAnswer(body);
      if (!answer) return null;
      return {
        usage: answer.usage,
        finishReason: answer.stopReason,
        nativeFinishReason: answer.nativeStopReason,
        toolCalls: answer.parts.filter((p) => p.type === 'tool_call').length,
        upstreamId: answer.upstreamId,
        text: () => answerText(answer),
        render: (head, usage, cost) => messageBody(head, answer, usage, cost),
      };
    },
    stream(head) {
      const s = new MessagesEvents(adapter.createEvents(), head);
      return closing(s, {
        preamble: () => s.preamble(),
        openBlocks: () => (s.openIndex === null ? [] : [s.openIndex]),
        stop: () => ({ reason: stopReasonOf(s.stopReason) ?? 'end_turn', sequence: null }),
      });
    },
  };
}

const views = new WeakMap<ChatAdapter, DoorView>();

/** POST /messages. */
export const MESSAGES_DOOR: Door<MessagesAsk> = {
  api: 'messages',
  route: '/api/v1/messages',
  planInput: messagesPlanInput,
  job: messagesJob,
  failed: (_head, code, message) => errorEvent(code, message),
  view(adapter) {
    let view = views.get(adapter);
    if (!view) {
      view = passThroughView(adapter) ?? canonicalView(adapter);
      views.set(adapter, view);
    }
    return view;
  },
  assemble: assembleMessage,
  endUser: ({ body }) => (typeof body.metadata?.user_id === 'string' ? body.metadata.user_id.slice(0, 512) : null),
  sessionId: ({ body, agentSession }) => body.session_id ?? agentSession,
};
