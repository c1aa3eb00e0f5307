/**
 * Issue 58, "Tests": LangChain (`ChatOpenRouter`) and the Vercel AI SDK read the reasoning fields
 * they know from the gateway's answers, whole and streamed (driver: chat-reasoning-sdks.mjs, in a
 * child process), on a Claude model whose fake upstream thinks with a signature: the text of the
 * thinking, the `reasoning_details` LangChain keeps for sending back, and the reasoning tokens.
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { FAKE_SIGNATURE } from '../fakes/chat-wires';
import { runDriver } from './run-driver';

type Failed = { error?: { name: string; message: string } };
interface LangChainMessage {
  content: string;
  reasoning_content?: string;
  reasoning_details?: Array<{ type: string; text?: string; signature?: string; format?: string }>;
  output_token_details?: { reasoning?: number };
}
interface AiResult {
  text: string;
  reasoningText?: string;
  usage: { outputTokens: number; reasoningTokens?: number };
}
interface DriverOutput {
  langchainInvoke: LangChainMessage & Failed;
  langchainStream: LangChainMessage & Failed;
  aiGenerate: AiResult & Failed;
  aiStream: AiResult & Failed;
}

let h: GatewayHarness;
let out: DriverOutput;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  out = await runDriver<DriverOutput>('chat-reasoning-sdks.mjs', h.baseUrl as string, h.key);
});
afterAll(() => h.close());

test('every call reached Claude with a thinking budget', () => {
  for (const result of Object.values(out)) expect((result as Failed).error).toBeUndefined();
  const sent = h.fleet.fakes.anthropic!.calls;
  expect(sent).toHaveLength(4);
  for (const call of sent) expect(call.body).toMatchObject({ thinking: { type: 'enabled' } });
});

test.each(['langchainInvoke', 'langchainStream'] as const)(
  'LangChain %s: the reasoning text, its signed detail and the reasoning tokens',
  (name) => {
    const m = out[name];
    expect(m.content).toBe('echo: think first');
    expect(m.reasoning_content).toBe('thinking about: think first');
    expect(m.reasoning_details).toEqual([
      expect.objectContaining({
        type: 'reasoning.text',
        text: 'thinking about: think first',
        signature: FAKE_SIGNATURE,
      }),
    ]);
  },
);

test.each(['aiGenerate', 'aiStream'] as const)('AI SDK %s: reasoningText beside the text', (name) => {
  const r = out[name];
  expect(r.text).toBe('echo: think first');
  expect(r.reasoningText).toBe('thinking about: think first');
});
