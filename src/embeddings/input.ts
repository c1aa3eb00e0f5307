/**
 * Turns the validated `input` (string, string[], token array, array of token arrays, or
 * multimodal `[{content:[parts]}]`) into one normalised form, the modalities it carries (for
 * candidate selection), and a cheap token estimate for the budget reservation.
 * @module
 */
import type { Modality } from '../catalog/types';
import type { ContentPart, EmbeddingInput } from '../providers/embeddings-types';
import { isCountWithin } from '../usage/bounds';

/** The validated shapes of `input`. */
export type RawInput = string | string[] | number[] | number[][] | Array<{ content: ContentPart[] }>;

/** The normalised input plus what routing and accounting need from it. */
export interface NormalisedInput {
  input: EmbeddingInput;
  /** Number of embeddings the response must hold. */
  count: number;
  modalities: ReadonlySet<Modality>;
  /** Image parts (priced per image where the endpoint has an image price). */
  images: number;
  /** `text`, `tokens`, or the modalities joined with `+` (usage records). */
  modalityLabel: string;
  /**
   * Upper bound of the prompt tokens of the text (see {@link textTokenBound}; exact for token
   * ids; the text parts of multimodal input). Images add to it per endpoint ({@link tokenBoundOn}).
   */
  textBound: number;
}

/**
 * The prompt tokens `norm` can count on an endpoint of `contextLength`: the reservation holds this
 * much and the charge is capped to it. Multimodal input has no bound of its own (providers count
 * an image as anything from a flat price to hundreds of tokens), so each image is bounded by the
 * endpoint's context length, which no input can exceed; its text parts by their own bound.
 */
export function tokenBoundOn(norm: NormalisedInput, contextLength: number): number {
  return norm.textBound + norm.images * contextLength;
}

const PART_MODALITY: Record<ContentPart['type'], Modality> = {
  text: 'text',
  image_url: 'image',
  input_audio: 'audio',
  input_video: 'video',
  input_file: 'file',
};

const TEXT_ONLY: ReadonlySet<Modality> = new Set(['text']);
const NO_MODALITY: ReadonlySet<Modality> = new Set();

/** Normalise a validated `input`. */
export function normaliseInput(raw: RawInput): NormalisedInput {
  if (typeof raw === 'string') return textInput([raw]);
  const first = raw[0];
  if (typeof first === 'string') return textInput(raw as string[]);
  if (typeof first === 'number') return tokenInput([raw as number[]]);
  if (Array.isArray(first)) return tokenInput(raw as number[][]);
  const items = (raw as Array<{ content: ContentPart[] }>).map((item) => item.content);
  const modalities = new Set<Modality>();
  let images = 0;
  for (const parts of items) {
    for (const part of parts) {
      modalities.add(PART_MODALITY[part.type]);
      if (part.type === 'image_url') images++;
    }
  }
  const label = (['text', 'image', 'audio', 'video', 'file'] as Modality[]).filter((m) => modalities.has(m)).join('+');
  const input: EmbeddingInput = { kind: 'multimodal', items };
  const textBound = textTokenBound(textsToCount(input), items.length);
  return { input, count: items.length, modalities, images, modalityLabel: label, textBound };
}

function textInput(texts: string[]): NormalisedInput {
  const textBound = textTokenBound(texts, texts.length);
  return {
    input: { kind: 'text', texts },
    count: texts.length,
    modalities: TEXT_ONLY,
    images: 0,
    modalityLabel: 'text',
    textBound,
  };
}

function tokenInput(tokens: number[][]): NormalisedInput {
  const input: EmbeddingInput = { kind: 'tokens', tokens };
  const exact = tokenIdCount(input);
  return { input, count: tokens.length, modalities: NO_MODALITY, images: 0, modalityLabel: 'tokens', textBound: exact };
}

/** The texts to count with the tokenizer (text parts of multimodal items included). */
export function textsToCount(input: EmbeddingInput): string[] {
  if (input.kind === 'text') return input.texts;
  if (input.kind === 'tokens') return [];
  return input.items.flatMap((parts) => parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])));
}

/**
 * The text parts of a raw `input` (its strings, or the text parts of multimodal items), for work
 * after the answer that reads what was sent (classifiers, rankings samples); none for token ids or
 * for a value that is not an embeddings input.
 */
export function inputTexts(raw: unknown): string[] {
  try {
    return textsToCount(normaliseInput(raw as RawInput).input);
  } catch {
    return [];
  }
}

/** Exact token count for token-id input. */
export function tokenIdCount(input: EmbeddingInput): number {
  return input.kind === 'tokens' ? input.tokens.reduce((n, t) => n + t.length, 0) : 0;
}

/** Tokens a tokenizer may add to each input on top of its text (BOS/EOS and similar markers). */
const MARKERS_PER_INPUT = 4;

/**
 * An upper bound of the prompt tokens of `texts` spread over `inputs` inputs, cheap enough for
 * the hot path (no tokenizer): byte-level BPE and SentencePiece with byte fallback never make
 * more tokens than the text has UTF-8 bytes, plus a few markers per input. The budget
 * reservation holds this much, so concurrent requests can never spend past a limit (an estimate
 * below the real cost would let them), and an upstream that claims more is not believed.
 */
function textTokenBound(texts: readonly string[], inputs: number): number {
  let bytes = 0;
  for (const t of texts) bytes += Buffer.byteLength(t, 'utf8');
  return bytes + MARKERS_PER_INPUT * inputs;
}

/** What an embeddings answer is charged for, and whether the upstream's figures were taken. */
export interface ChargedUsage {
  tokens: number;
  images: number;
  /** Some figure is the gateway's (the upstream's was missing, zero or out of bounds). */
  estimated: boolean;
  /** The upstream's figures that were out of bounds (for the log line). */
  replaced: string[];
}

/**
 * The prompt tokens and images to charge: the upstream's figures when they are plausible, else
 * our own. A missing or zero token figure for a non-empty input is never taken (cost is never a
 * silent 0), nor one that is not a count (negative, fractional, NaN, beyond 2^53: then `count()`);
 * one above `bound` ({@link tokenBoundOn}) is capped to it (the reservation already holds that
 * much). More images than the input has are never taken (then the input's own).
 */
export function chargedUsage(
  reported: { promptTokens: number | null; imageCount: number | null },
  norm: NormalisedInput,
  contextLength: number,
  count: () => number,
): ChargedUsage {
  const bound = tokenBoundOn(norm, contextLength);
  const own = () => Math.min(bound, Math.max(1, count()));
  const replaced: string[] = [];
  const r = reported.promptTokens;
  const taken = r !== null && r !== 0 && isCountWithin(r, bound);
  if (r !== null && r !== 0 && !taken) replaced.push('promptTokens');
  const tokens = taken ? r : r !== null && isCountWithin(r, Number.MAX_SAFE_INTEGER) && r > bound ? bound : own();
  const i = reported.imageCount;
  const imagesOk = i === null || isCountWithin(i, norm.images);
  if (!imagesOk) replaced.push('imageCount');
  return { tokens, images: i !== null && imagesOk ? i : norm.images, estimated: !taken || !imagesOk, replaced };
}
