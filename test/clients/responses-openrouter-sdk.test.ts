/**
 * Issue 57 (the Responses door): `@openrouter/sdk`'s `responses.send`, whole and streamed, against
 * the gateway over fake upstreams of both formats (driver: responses-openrouter-sdk.mjs, in a child
 * process as the SDK is ESM-only). The SDK parses the answer and each event with its own schemas,
 * so these fail on a field the gateway leaves out or types wrongly.
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { runDriver } from './run-driver';

type Failed = { error?: { name: string; issues: string[] } };
interface SdkResponse {
  id: string;
  status: string;
  model: string;
  output: Array<{ type: string; content?: Array<{ type: string; text: string }> }>;
  usage?: { inputTokens: number; outputTokens: number; cost?: number };
}
interface DriverOutput {
  plain: SdkResponse & Failed;
  anthropic: SdkResponse & Failed;
  stream: Array<{ type: string; sequenceNumber: number; delta?: string; response?: SdkResponse }> & Failed;
}

let h: GatewayHarness;
let out: DriverOutput;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  out = await runDriver<DriverOutput>('responses-openrouter-sdk.mjs', h.baseUrl as string, h.key);
});
afterAll(() => h.close());

test.each([
  ['plain', 'openai/gpt-4.1-mini', 'echo: hello from openrouter'],
  ['anthropic', 'anthropic/claude-sonnet-4', 'echo: hello claude'],
] as const)('responses.send (%s): the SDK parses the answer', (name, model, text) => {
  const res = out[name];
  expect(res.error ?? null).toBeNull(); // the response's own `error` is null; a failed call's is the driver's error
  expect(res).toMatchObject({ status: 'completed', model });
  expect(res.output[0]!.content![0]!.text).toBe(text);
  expect(res.id).toMatch(/^resp_gen-/);
});

test('responses.send streamed: the SDK parses every event; deltas and response.completed', () => {
  expect(out.stream.error).toBeUndefined();
  const types = out.stream.map((e) => e.type);
  expect(types[0]).toBe('response.created');
  expect(types.at(-1)).toBe('response.completed');
  const text = out.stream
    .filter((e) => e.type === 'response.output_text.delta')
    .map((e) => e.delta)
    .join('');
  expect(text).toBe('echo: stream it please');
});
