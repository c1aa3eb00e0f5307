/**
 * Success bodies of each provider wire format, computed deterministically from the request so
 * tests can assert exact vectors. Values are multiples of 1/8, exact in float32, so base64
 * round trips compare exactly. A text of length L gives a vector whose first value is L/8.
 */

/** The fake's vector for an input of "size" `n` (text length or token count) at `dims` dimensions. */
export function fakeVector(n: number, dims = 8): number[] {
  return Array.from({ length: dims }, (_, j) => (j === 0 ? n / 8 : ((n + j) % 7) / 8 - 0.25));
}

/** Tokens the fakes report for a text: its length in characters (easy to assert). */
export const fakeTokens = (text: string) => text.length;

function sizeOf(item: unknown): number {
  if (typeof item === 'string') return item.length;
  if (Array.isArray(item)) return item.length;
  const content = (item as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.reduce((n, p) => n + (p.type === 'text' ? (p.text ?? '').length : 100), 0);
}

/** Little-endian float32 bytes of `v` in base64, as an upstream answers `encoding_format: base64`. */
export function float32Base64(v: number[]): string {
  return Buffer.from(Float32Array.from(v).buffer).toString('base64');
}

/** OpenAI-compatible `/embeddings`. */
export function openaiWire(_path: string, body: Record<string, unknown>, opts: { reportUsage: boolean }) {
  const raw = body.input;
  const items: unknown[] =
    typeof raw === 'string' ? [raw] : Array.isArray(raw) && typeof raw[0] === 'number' ? [raw] : (raw as unknown[]);
  const dims = typeof body.dimensions === 'number' ? body.dimensions : 8;
  const tokens = items.reduce<number>((n, i) => n + sizeOf(i), 0);
  return {
    object: 'list',
    id: 'up-openai-1',
    model: String(body.model),
    data: items.map((item, index) => {
      const v = fakeVector(sizeOf(item), dims);
      return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? float32Base64(v) : v };
    }),
    ...(opts.reportUsage ? { usage: { prompt_tokens: tokens, total_tokens: tokens } } : {}),
  };
}

/** Cohere v2 `/v2/embed`. */
export function cohereWire(_path: string, body: Record<string, unknown>, opts: { reportUsage: boolean }) {
  const items = (body.texts as unknown[] | undefined) ?? (body.inputs as unknown[]);
  const dims = typeof body.output_dimension === 'number' ? body.output_dimension : 8;
  const parts = (i: unknown) =>
    typeof i === 'string'
      ? [{ type: 'text', text: i }]
      : (i as { content: Array<{ type: string; text?: string }> }).content;
  const images = items.reduce<number>((n, i) => n + parts(i).filter((p) => p.type === 'image_url').length, 0);
  const textTokens = items.reduce<number>((n, i) => n + parts(i).reduce((m, p) => m + (p.text ?? '').length, 0), 0);
  return {
    id: 'up-cohere-1',
    embeddings: { float: items.map((i) => fakeVector(sizeOf(i), dims)) },
    ...(opts.reportUsage
      ? { meta: { billed_units: { input_tokens: textTokens, ...(images ? { images } : {}) } } }
      : {}),
  };
}

/** Gemini `models/{model}:batchEmbedContents` (never reports usage). */
export function geminiWire(_path: string, body: Record<string, unknown>) {
  const requests = body.requests as Array<{
    content: { parts: Array<{ text: string }> };
    outputDimensionality?: number;
  }>;
  return {
    embeddings: requests.map((r) => ({
      values: fakeVector(r.content.parts.map((p) => p.text).join('').length, r.outputDimensionality ?? 8),
    })),
  };
}

/** Voyage `/v1/embeddings`. */
export function voyageWire(_path: string, body: Record<string, unknown>, opts: { reportUsage: boolean }) {
  const items = body.input as string[];
  const dims = typeof body.output_dimension === 'number' ? body.output_dimension : 8;
  return {
    object: 'list',
    data: items.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t.length, dims) })),
    model: String(body.model),
    ...(opts.reportUsage ? { usage: { total_tokens: items.reduce((n, t) => n + t.length, 0) } } : {}),
  };
}

/**
 * A `reshape` fault for OpenAI-wire fakes: each item's `embedding` replaced by `pick(embedding, index)`
 * (non-finite float32 bytes, numbers outside float32, vectors of another length …).
 */
export function openaiEmbeddings(pick: (embedding: unknown, index: number) => unknown) {
  return {
    reshape: (body: Record<string, unknown>) => ({
      ...body,
      data: (body.data as Array<Record<string, unknown>>).map((d, i) => ({ ...d, embedding: pick(d.embedding, i) })),
    }),
  };
}
