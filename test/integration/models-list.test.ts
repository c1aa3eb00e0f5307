/**
 * Issue 42 item 1: `GET /models` is served by the gateway from its catalog (no passthrough): the
 * chat models by default (output `text`, as the hosted list), the embeddings models with
 * `output_modalities=all` or `embeddings`, each in the hosted list object's shape, with the hosted
 * list's filters, sorts and paging; a filter it cannot apply is a 400. A chat model's endpoints page
 * carries its completion prices and limits; POST /embeddings with a chat model is a 400 naming the
 * list to use; GET /embeddings/models stays embeddings-only; GET /providers lists the chat providers.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';
import { cheapestPerMillion, shippedChatModels, type ShippedModel } from '../helpers/shipped-catalog';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(() => h.close());

const get = (path: string, key = h.key) => request(h.gw.app).get(path).set('Authorization', bearer(key));
type Wire = {
  id: string;
  architecture: { modality: string; output_modalities: string[] };
  pricing: Record<string, string>;
  [k: string]: unknown;
};
const ids = (body: { data: Wire[] }) => body.data.map((m) => m.id);
/** The shipped chat models the list must show for a filter, in catalog order (from config/chat-models.yaml). */
const shipped = shippedChatModels();
const shippedIds = (keep: (m: ShippedModel) => boolean) => shipped.filter(keep).map((m) => m.id);
const onProvider = (slug: string) => shippedIds((m) => m.endpoints.some((e) => e.provider === slug));
const average = (m: ShippedModel) => (cheapestPerMillion(m).prompt + cheapestPerMillion(m).completion) / 2;

test('by default the chat models, each in the hosted list object shape', async () => {
  const res = await get('/api/v1/models').expect(200);
  expect(res.body.total_count).toBe(res.body.data.length);
  expect(res.body.links).toEqual({ next: null });
  expect(ids(res.body)).toEqual(
    expect.arrayContaining([
      'openai/gpt-4o',
      'anthropic/claude-sonnet-4',
      'mistralai/mistral-large',
      'meta-llama/llama-3.3-70b-instruct',
    ]),
  );
  expect(ids(res.body)).not.toContain('openai/text-embedding-3-small');

  const sonnet = res.body.data.find((m: Wire) => m.id === 'anthropic/claude-sonnet-4');
  expect(sonnet).toEqual({
    id: 'anthropic/claude-sonnet-4',
    canonical_slug: 'anthropic/claude-sonnet-4',
    hugging_face_id: null,
    name: 'Anthropic: Claude Sonnet 4',
    created: 1747872000,
    description: expect.any(String),
    context_length: 200000,
    architecture: {
      modality: 'text+image+file->text',
      input_modalities: ['text', 'image', 'file'],
      output_modalities: ['text'],
      tokenizer: 'Claude',
      instruct_type: null,
    },
    pricing: {
      prompt: '0.000003',
      completion: '0.000015',
      request: '0',
      image: '0',
      input_cache_read: '0.0000003',
      input_cache_write: '0.00000375',
    },
    top_provider: { context_length: 200000, max_completion_tokens: 64000, is_moderated: false },
    per_request_limits: null,
    supported_parameters: [
      'include_reasoning',
      'max_tokens',
      'reasoning',
      'stop',
      'temperature',
      'tool_choice',
      'tools',
      'top_k',
      'top_p',
    ],
    default_parameters: null,
    supported_voices: null,
    knowledge_cutoff: null,
    expiration_date: null,
    links: { details: '/api/v1/models/anthropic/claude-sonnet-4/endpoints' },
  });
  // No cache-write price at OpenAI: the key is left out, not "0".
  const mini = res.body.data.find((m: Wire) => m.id === 'openai/gpt-4o-mini');
  expect(mini.pricing).toEqual({
    prompt: '0.00000015',
    completion: '0.0000006',
    request: '0',
    image: '0',
    input_cache_read: '0.000000075',
  });
  // Several providers: the list shows the cheapest endpoint's prices and limits.
  const llama = res.body.data.find((m: Wire) => m.id === 'meta-llama/llama-3.1-8b-instruct');
  expect(llama).toMatchObject({
    pricing: { prompt: '0.00000002', completion: '0.00000003' },
    top_provider: { max_completion_tokens: null },
  });
});

test('output_modalities=all lists both kinds; embeddings lists only the embeddings models', async () => {
  const all = (await get('/api/v1/models?output_modalities=all').expect(200)).body;
  expect(ids(all)).toEqual(expect.arrayContaining(['openai/gpt-4o', 'openai/text-embedding-3-small', 'baai/bge-m3']));
  const embedding = all.data.find((m: Wire) => m.id === 'openai/text-embedding-3-small');
  expect(embedding.architecture).toMatchObject({ modality: 'text->embeddings', output_modalities: ['embeddings'] });
  expect(embedding.pricing).toEqual({ prompt: '0.00000002', completion: '0', request: '0', image: '0' });

  const embeddingsOnly = (await get('/api/v1/models?output_modalities=embeddings').expect(200)).body;
  const listed = (await get('/api/v1/embeddings/models').expect(200)).body;
  expect(ids(embeddingsOnly)).toEqual(ids(listed));
  expect(ids(listed)).not.toContain('openai/gpt-4o');
  expect(all.total_count).toBe(embeddingsOnly.total_count + (await get('/api/v1/models').expect(200)).body.total_count);
});

test('filters: supported_parameters, input_modalities, providers, model_authors, q, context, prices, zdr', async () => {
  const list = async (query: string) => ids((await get(`/api/v1/models?${query}`).expect(200)).body);
  // Anthropic lists neither response_format nor seed.
  const structured = await list('supported_parameters=response_format,seed');
  expect(structured).toEqual(expect.arrayContaining(['openai/gpt-4o', 'meta-llama/llama-3.3-70b-instruct']));
  expect(structured.some((id) => id.startsWith('anthropic/'))).toBe(false);
  expect(await list('input_modalities=text,image')).not.toContain('mistralai/mistral-large');
  expect(await list('providers=groq')).toEqual(onProvider('groq'));
  expect(await list('providers=groq')).toEqual(
    expect.arrayContaining([
      'meta-llama/llama-3.1-8b-instruct',
      'meta-llama/llama-3.3-70b-instruct',
      'openai/gpt-oss-120b',
    ]),
  );
  expect(await list('providers=Anthropic')).toEqual(onProvider('anthropic'));
  expect(await list('providers=Anthropic')).toEqual(expect.arrayContaining(['anthropic/claude-sonnet-4']));
  expect(await list('model_authors=mistralai')).toEqual(shippedIds((m) => m.id.startsWith('mistralai/')));
  expect(await list('q=haiku')).toEqual(shippedIds((m) => `${m.id}\n${m.name}`.toLowerCase().includes('haiku')));
  expect(await list('q=haiku')).toEqual(
    expect.arrayContaining(['anthropic/claude-haiku-4.5', 'anthropic/claude-3.5-haiku']),
  );
  const longContext = await list('context=1000000');
  expect(longContext).toEqual(shippedIds((m) => m.context_length >= 1000000));
  expect(longContext).toEqual(expect.arrayContaining(['openai/gpt-4.1', 'openai/gpt-5.5']));
  expect(longContext).not.toContain('openai/gpt-4o');
  // USD per 1M tokens of the cheapest endpoint.
  const cheap = await list('max_price=0.1');
  expect(cheap).toEqual(shippedIds((m) => cheapestPerMillion(m).prompt <= 0.1));
  expect(cheap).toEqual(expect.arrayContaining(['meta-llama/llama-3.1-8b-instruct']));
  expect(cheap).not.toContain('openai/gpt-4o');
  const dear = await list('min_output_price=15');
  expect(dear).toEqual(shippedIds((m) => cheapestPerMillion(m).completion >= 15));
  expect(dear).toEqual(expect.arrayContaining(['openai/gpt-5.5', 'anthropic/claude-sonnet-4']));
  expect(dear).not.toContain('openai/gpt-4o-mini');
  expect(await list('zdr=true')).toEqual([]);
});

test('sort and paging: links.next carries the filters', async () => {
  const newest = ids((await get('/api/v1/models?sort=newest').expect(200)).body);
  expect(newest[0]).toBe([...shipped].sort((a, b) => b.created - a.created)[0]!.id);
  expect(newest).toHaveLength(shipped.length);
  const byPrice = [...shipped].sort((a, b) => average(a) - average(b)).map((m) => m.id);
  const cheap = ids((await get('/api/v1/models?sort=pricing-low-to-high').expect(200)).body);
  expect(cheap[0]).toBe(byPrice[0]);
  expect(cheap.at(-1)).toBe(byPrice.at(-1));

  const first = (await get('/api/v1/models?output_modalities=all&sort=newest&offset=0&limit=3').expect(200)).body;
  expect(first.data).toHaveLength(3);
  expect(first.links.next).toBe('/api/v1/models?output_modalities=all&sort=newest&offset=3&limit=3');
  const second = (await get(first.links.next).expect(200)).body;
  expect(ids(second)).toEqual(
    ids((await get('/api/v1/models?output_modalities=all&sort=newest').expect(200)).body).slice(3, 6),
  );
});

test.each([
  ['category=programming', 'query.category'],
  ['output_modalities=video', 'query.output_modalities'],
  ['sort=most-popular', 'query.sort'],
  ['limit=0', 'query.limit'],
  ['context=many', 'query.context'],
])('GET /models?%s → 400 naming %s', async (query, path) => {
  const res = await get(`/api/v1/models?${query}`);
  expect(res.status).toBe(400);
  expect(res.body.error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
});

test('GET /models needs a key (any kind), and answers the management key too', async () => {
  expect((await request(h.gw.app).get('/api/v1/models')).status).toBe(401);
  expect((await get('/api/v1/models', h.gw.mgmtKey)).status).toBe(200);
});

test("a chat model's endpoints page: completion and cache prices, completion limit, parameters, tool choice, implicit caching", async () => {
  const llama = (await get('/api/v1/models/meta-llama/llama-3.3-70b-instruct/endpoints').expect(200)).body.data;
  expect(llama.architecture).toMatchObject({ modality: 'text->text', output_modalities: ['text'] });
  expect(llama.endpoints.map((e: { tag: string }) => e.tag)).toEqual([
    'deepinfra',
    'together',
    'groq',
    'fireworks',
    'amazon-bedrock',
  ]);
  const groq = llama.endpoints.find((e: { tag: string }) => e.tag === 'groq');
  expect(groq).toMatchObject({
    provider_name: 'Groq',
    pricing: { prompt: '0.00000059', completion: '0.00000079', request: '0', image: '0' },
    max_completion_tokens: 32768,
    context_length: 131072,
    output_modalities: ['text'],
    supports_tool_choice: { auto: true, function: true, none: true, required: true },
    supports_implicit_caching: false,
    configured: true,
  });
  expect(groq.supported_parameters).toContain('response_format');
  expect(groq.supported_parameters).not.toContain('logprobs');

  const sonnet = (await get('/api/v1/models/anthropic/claude-sonnet-4/endpoints').expect(200)).body.data.endpoints[0];
  expect(sonnet.pricing).toEqual({
    prompt: '0.000003',
    completion: '0.000015',
    request: '0',
    image: '0',
    input_cache_read: '0.0000003',
    input_cache_write: '0.00000375',
  });
  expect(sonnet.supports_implicit_caching).toBe(false); // explicit cache_control, priced writes
  const gpt = (await get('/api/v1/models/openai/gpt-4o/endpoints').expect(200)).body.data.endpoints[0];
  expect(gpt.supports_implicit_caching).toBe(true);
});

test('POST /embeddings with a chat model → 400 naming the embeddings list; GET /providers lists the chat providers', async () => {
  const res = await h.post({ model: 'anthropic/claude-sonnet-4', input: 'x' });
  expect(res.status).toBe(400);
  expect(res.body.error.metadata.errors).toEqual([
    {
      path: 'body.model',
      message:
        'anthropic/claude-sonnet-4 is not an embeddings model; use an embeddings model from GET /embeddings/models',
    },
  ]);
  const providers = (await get('/api/v1/providers').expect(200)).body.data as Array<{
    slug: string;
    endpoints: Array<{ model: string }>;
  }>;
  const served = Object.fromEntries(providers.map((p) => [p.slug, p.endpoints.map((e) => e.model)]));
  for (const slug of ['anthropic', 'fireworks', 'groq', 'xai']) expect(served[slug]).toEqual(onProvider(slug));
  expect(served.groq).toEqual(
    expect.arrayContaining(['meta-llama/llama-3.3-70b-instruct', 'meta-llama/llama-3.1-8b-instruct']),
  );
  expect(served.openai).toEqual(expect.arrayContaining(['openai/text-embedding-3-small', 'openai/gpt-4o']));
});
