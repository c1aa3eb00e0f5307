/** A chat {@link Endpoint} for adapter tests, without loading the catalog. */
import type { Endpoint } from '../../src/catalog/types';
import type { ChatBody } from '../../src/chat/types';
import type { ChatJob, StreamHead } from '../../src/providers/chat-types';
import { chatJob as jobOf } from '../../src/chat/job';

/** The gateway's side of a test stream: every chunk it returns carries these. */
export const HEAD: StreamHead = { id: 'gen-1-test', model: 'test/model', provider: 'Test', created: 1767225600 };

/** An endpoint of provider `slug` at `baseUrl`, overridable member by member. */
export function chatEndpoint(
  over: Partial<Endpoint> = {},
  slug = 'openai',
  baseUrl = 'https://up.example/v1',
): Endpoint {
  return {
    id: `${slug}:test/model`,
    modelId: 'test/model',
    provider: {
      slug,
      name: slug,
      adapter: slug,
      baseUrl,
      keys: [{ label: 'key-1', secret: `key-${slug}`, weight: 1 }],
      configured: true,
      apiVersion: null,
      apiStyle: 'deployments',
      region: null,
      aws: null,
      entra: null,
      timeoutMs: null,
      base64Passthrough: false,
      responses: false,
    },
    upstreamModel: 'upstream-model',
    pricing: {
      prompt: 0,
      completion: 0,
      image: 0,
      request: 0,
      cacheRead: null,
      cacheWrite: null,
      text: { prompt: '0', completion: '0', image: '0', request: '0' },
    },
    contextLength: 100000,
    maxCompletionTokens: null,
    inputModalities: new Set(['text', 'image']),
    outputModalities: new Set(['text']),
    tokenInput: false,
    parameters: new Set(),
    quantization: 'unknown',
    retainsData: false,
    trainsOnData: false,
    zdr: false,
    throughput: null,
    latencyMs: null,
    ...over,
  };
}

/** A job for `body` (`maxTokens` as the service derives it). */
export function chatJob(body: ChatBody, stream = false): ChatJob {
  return jobOf(body, body.max_completion_tokens ?? body.max_tokens ?? undefined, stream);
}

/** Feed `bytes` to a stream one byte at a time, or whole; the events it returned plus its end. */
export function feed(
  stream: { push(b: Buffer): string[]; end(): string[] },
  bytes: Buffer,
  oneByOne: boolean,
): string[] {
  const out: string[] = [];
  if (oneByOne) for (let i = 0; i < bytes.length; i++) out.push(...stream.push(bytes.subarray(i, i + 1)));
  else out.push(...stream.push(bytes));
  out.push(...stream.end());
  return out;
}

/** The key an adapter test builds with: the endpoint's first, as the key pool would pick it. */
export function keyOf(endpoint: Endpoint): string | null {
  return endpoint.provider.keys[0]?.secret ?? null;
}
