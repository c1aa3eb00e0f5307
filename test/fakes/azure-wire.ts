/**
 * Azure OpenAI in front of the OpenAI fakes: the OpenAI chat and embeddings wires behind Azure's
 * URLs (`/openai/deployments/{deployment}/{chat/completions|embeddings}?api-version=…` and the v1
 * API's `/openai/v1/…`, where the body's `model` names the deployment), checking what Azure checks:
 * - the `api-key` header (a key of {@link AZURE_FAKE}`.keys`) or `Authorization: Bearer` (one of
 *   its `tokens`, as an Entra sign-in), else 401;
 * - a deployment URL's `api-version` (one of its `apiVersions`), else 404 `Resource not found`;
 *   the v1 API takes none;
 * - the deployment (one of its `deployments`), else 404 `DeploymentNotFound`.
 * Chat answers carry Azure's content-filter annotations (`prompt_filter_results`, each choice's
 * `content_filter_results`) and a stream opens with Azure's prompt-filter-only event (empty id
 * and model). {@link contentFilterRefusal} is Azure's 400 for a filtered prompt, and
 * {@link filteredAnswer} / {@link filteredStream} a completion its filter cut (`content_filter`).
 */
import type { ChatWire } from './chat-wires';
import { openaiChatWire } from './chat-wires';
import type { Fault } from './server';
import { openaiWire } from './wires';

/** What the fake accepts; tests add tokens or deployments and restore them. */
export const AZURE_FAKE = {
  keys: new Set(['test-key-azure']),
  tokens: new Set<string>(),
  apiVersions: new Set(['2024-10-21', '2024-06-01', '2025-04-01-preview']),
  deployments: new Set(['gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-5-mini', 'text-embedding-3-large']),
};

const ROUTE = /^\/openai\/(?:deployments\/(?<deployment>[^/]+)|(?<v1>v1))\/(?<operation>chat\/completions|embeddings)$/;

/** A filter category as Azure reports one it let through. */
const SAFE = { filtered: false, severity: 'safe' };
const CHECKED = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };

const isEmbeddings = (body: Record<string, unknown>) => 'input' in body && !('messages' in body);

const error = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });

/** Azure's refusal of a request it does not let through, or null. */
function refusalOf(url: string, headers: Record<string, string | string[] | undefined>, rawBody: Buffer) {
  const [path = '', query = ''] = url.split('?');
  const route = ROUTE.exec(path)?.groups;
  if (!route) return error(404, '404', 'Resource not found');
  const key = headers['api-key'];
  const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
  if (!(typeof key === 'string' && AZURE_FAKE.keys.has(key)) && !(bearer && AZURE_FAKE.tokens.has(bearer)))
    return error(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint.');
  const version = new URLSearchParams(query).get('api-version');
  if (route.v1 ? version !== null : !version || !AZURE_FAKE.apiVersions.has(version))
    return error(404, '404', 'Resource not found');
  let deployment = route.deployment ? decodeURIComponent(route.deployment) : '';
  if (route.v1) {
    try {
      const model = (JSON.parse(rawBody.toString('utf8')) as { model?: unknown }).model;
      deployment = typeof model === 'string' ? model : '';
    } catch {
      deployment = '';
    }
  }
  if (!AZURE_FAKE.deployments.has(deployment))
    return error(404, 'DeploymentNotFound', 'The API deployment for this resource does not exist.');
  return null;
}

/** Every choice of a chat chunk or answer with Azure's annotation. */
function annotated(answer: Record<string, unknown>): Record<string, unknown> {
  const choices = (answer.choices as Array<Record<string, unknown>>).map((c) => ({
    ...c,
    content_filter_results: CHECKED,
  }));
  return { ...answer, choices };
}

/** The prompt-filter-only event Azure opens a stream with. */
const PROMPT_EVENT = `data: ${JSON.stringify({
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: CHECKED }],
})}\n\n`;

/** Azure OpenAI's chat completions and embeddings (see the module comment). */
export const azureChatWire: ChatWire = {
  path: '/chat/completions',
  matches: (path) => ROUTE.test(path),
  authenticate: ({ url, headers, rawBody }) => refusalOf(url, headers, rawBody),
  refuse: (body) => (isEmbeddings(body) ? null : openaiChatWire.refuse!(body)),
  answer(body, opts) {
    if (isEmbeddings(body)) return openaiWire('', body, opts);
    const answer = openaiChatWire.answer(body, opts) as Record<string, unknown>;
    return { ...annotated(answer), prompt_filter_results: [{ prompt_index: 0, content_filter_results: CHECKED }] };
  },
  events(body, opts) {
    const events = openaiChatWire.events(body, opts).map((e) => {
      const data = e.toString().slice('data: '.length).trim();
      if (data === '[DONE]') return e;
      const chunk = JSON.parse(data) as Record<string, unknown>;
      return `data: ${JSON.stringify(annotated(chunk))}\n\n`;
    });
    return [PROMPT_EVENT, ...events];
  },
  errorEvent: openaiChatWire.errorEvent,
};

/** The verdicts of a prompt Azure's filter refused: violence at medium severity, and a jailbreak attempt. */
export const FILTERED_VERDICT = {
  hate: { filtered: false, severity: 'safe' },
  jailbreak: { filtered: true, detected: true },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: true, severity: 'medium' },
};

/** Azure's 400 for a prompt its content filter refused (with what a gateway must not pass on: the message, a policy id). */
export function contentFilterRefusal(verdict: Record<string, unknown> = FILTERED_VERDICT): Fault {
  return {
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. secret-policy-7",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: verdict },
      },
    },
  };
}

/** A whole answer whose completion the filter cut: `finish_reason: content_filter`. */
export const filteredAnswer: Fault = {
  reshape: (b) => ({
    ...b,
    choices: (b.choices as Array<Record<string, unknown>>).map((c) => ({
      ...c,
      finish_reason: 'content_filter',
      content_filter_results: { ...CHECKED, violence: { filtered: true, severity: 'high' } },
    })),
  }),
};

/** A stream whose completion the filter cut: its finish reason is `content_filter`. */
export const filteredStream: Fault = {
  reshapeEvents: (events) => events.map((e) => e.replace('"finish_reason":"stop"', '"finish_reason":"content_filter"')),
};
