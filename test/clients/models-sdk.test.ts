/**
 * Issue 42 item 1: what `openai.models.list()` and the `@openrouter/sdk`'s `models.list` call
 * (`GET /models`) is served by the gateway from its catalog, and both clients see its chat
 * models; the OpenRouter SDK parses every list object with its own schema. The SDK is ESM-only,
 * so it runs in a child process.
 */
import { shippedChatModels } from '../helpers/shipped-catalog';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';

let h: GatewayHarness;
let baseURL: string;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  baseURL = h.baseUrl as string;
});
afterAll(() => h.close());

test('openai models.list() lists the chat models, served by the gateway', async () => {
  const client = new OpenAI({ apiKey: h.key, baseURL, maxRetries: 0 });
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  expect(ids).toEqual(
    expect.arrayContaining(['openai/gpt-4o', 'anthropic/claude-sonnet-4', 'meta-llama/llama-3.1-8b-instruct']),
  );
  expect(ids).not.toContain('openai/text-embedding-3-small');
  // Nothing went upstream: the list is the catalog's.
  expect(Object.values(h.fleet.fakes).every((f) => f.calls.length === 0)).toBe(true);
});

interface SdkModel {
  id: string;
  architecture: { modality: string; outputModalities: string[] };
  pricing: Record<string, string>;
  topProvider: { contextLength: number; maxCompletionTokens: number | null; isModerated: boolean };
  supportedParameters: string[];
}
type SdkPage = { error?: unknown; data: SdkModel[]; totalCount: number };

test('@openrouter/sdk models.list parses the gateway list: chat by default, both kinds with outputModalities all, filters applied', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'models-sdk.mjs')], {
    env: { ...process.env, SERVER_URL: baseURL, API_KEY: h.key },
    timeout: 20_000,
  });
  const out = JSON.parse(stdout) as Record<'chat' | 'all' | 'tools', SdkPage>;
  for (const name of ['chat', 'all', 'tools'] as const)
    expect({ name, error: out[name].error }).toEqual({ name, error: undefined });

  const sonnet = out.chat.data.find((m) => m.id === 'anthropic/claude-sonnet-4');
  expect(sonnet).toMatchObject({
    architecture: { modality: 'text+image+file->text', outputModalities: ['text'] },
    pricing: { prompt: '0.000003', completion: '0.000015', inputCacheRead: '0.0000003', inputCacheWrite: '0.00000375' },
    topProvider: { contextLength: 200000, maxCompletionTokens: 64000, isModerated: false },
  });
  expect(out.chat.data.every((m) => m.architecture.outputModalities.includes('text'))).toBe(true);
  expect(out.all.data.map((m) => m.id)).toEqual(
    expect.arrayContaining(['openai/gpt-4o', 'openai/text-embedding-3-small']),
  );
  expect(out.all.totalCount).toBeGreaterThan(out.chat.totalCount);
  // Groq's models that take tools and response_format, as the shipped catalog lists them.
  const onGroq = shippedChatModels()
    .filter((m) =>
      m.endpoints.some(
        (e) => e.provider === 'groq' && ['tools', 'response_format'].every((p) => e.supported_parameters?.includes(p)),
      ),
    )
    .map((m) => m.id);
  expect(onGroq.length).toBeGreaterThan(0);
  expect(out.tools.data.map((m) => m.id).sort()).toEqual(onGroq.sort());
});
