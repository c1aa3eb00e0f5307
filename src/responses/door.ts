/**
 * The Responses door on the inference core (POST /responses). An endpoint whose provider serves
 * OpenAI's own `/responses` gets the door's body and its answers pass through (relabelled, the
 * adapter's `responsesPassThrough`); every other adapter gets the canonical form and every answer
 * is written from canonical form, whole ({@link doorAnswerOf}) or streamed ({@link ResponsesStream}).
 * The door is made per request ({@link responsesDoor}): its canonical view maps tool calls back to
 * the request's own tools (custom tools, namespaces).
 * @module
 */
import type { Door, DoorView } from '../inference/door';
import type { ChatAdapter, ChatJob } from '../providers/chat-types';
import { doorAnswerOf } from './answer';
import { assembleResponse } from './assemble';
import { echoOf, type Echo } from './echo';
import { readBody, responsesPlanInput } from './plan';
import { ResponsesStream } from './stream';
import type { ResponsesBody } from './types';

/** The route label of the gateway-overhead metric. */
export const RESPONSES_ROUTE = '/api/v1/responses';

const doors = new WeakMap<ResponsesBody, Door<ResponsesBody>>();

/** The job: the door's body, for an upstream that serves `/responses`, and the canonical form (read once per request). */
function jobOf(body: ResponsesBody, maxTokens: number | undefined, stream: boolean): ChatJob {
  const { exchange } = readBody(body);
  // A whole answer the budget meters is read as a stream: the canonical form says so too.
  const streamed = exchange.stream === stream ? exchange : { ...exchange, stream };
  return { native: { format: 'openai-responses', body }, exchange: () => streamed, stream, maxTokens };
}

/** The door of one request (made once per body; throws the stateless 400s of `plan.ts`). */
export function responsesDoor(body: ResponsesBody): Door<ResponsesBody> {
  let door = doors.get(body);
  if (door) return door;
  const { tools } = readBody(body);
  // Only the door's own answers repeat the request (a passed-through one repeats OpenAI's): made
  // with its view, which the service asks for before the body gives up its members.
  let echo: Echo | undefined;
  const echoed = () => (echo ??= echoOf(body));
  const views = new Map<ChatAdapter, DoorView>();
  door = {
    api: 'responses',
    route: RESPONSES_ROUTE,
    planInput: responsesPlanInput,
    job: jobOf,
    failed: (head, code, message) => new ResponsesStream(null, head, tools, echoed()).fail(head, code, message),
    view(adapter, endpoint) {
      const pass = adapter.responsesPassThrough;
      if (pass?.serves(endpoint)) return pass;
      let view = views.get(adapter);
      if (!view) {
        const echo = echoed();
        view = {
          parse(raw) {
            const answer = adapter.parseAnswer(raw);
            return answer && doorAnswerOf(answer, tools, echo);
          },
          stream: (head) => new ResponsesStream(adapter.createEvents(), head, tools, echo),
        };
        views.set(adapter, view);
      }
      return view;
    },
    assemble: assembleResponse,
    endUser: (b) => b.user ?? b.safety_identifier ?? null,
    sessionId: (b) => b.session_id,
  };
  doors.set(body, door);
  return door;
}

/** The hosted tool types the request's door left out (for the route's header). */
export const leftOutTools = (body: ResponsesBody): string[] => readBody(body).tools.leftOut;
