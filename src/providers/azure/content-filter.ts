/**
 * Azure's content-filter refusal (HTTP 400, `error.code: "content_filter"`) read into the
 * gateway's detail: the known filter categories with their verdicts and nothing else, so the
 * client learns which filter fired without any of the upstream's text.
 * @module
 */
import type { UpstreamErrorDetail } from '../../transport/outcome';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';

/** The categories Azure reports (harm severities, Prompt Shields, protected material, blocklists). */
const CATEGORIES = [
  'hate',
  'sexual',
  'violence',
  'self_harm',
  'profanity',
  'jailbreak',
  'indirect_attack',
  'protected_material_text',
  'protected_material_code',
  'custom_blocklists',
] as const;

const SEVERITIES: ReadonlySet<unknown> = new Set(['safe', 'low', 'medium', 'high']);

/** One category's verdict: only booleans and a known severity. */
export interface FilterVerdict {
  filtered?: boolean;
  detected?: boolean;
  severity?: string;
}

function verdictOf(raw: unknown): FilterVerdict | null {
  const c = asObject(raw);
  if (!c) return null;
  const out: FilterVerdict = {};
  if (typeof c.filtered === 'boolean') out.filtered = c.filtered;
  if (typeof c.detected === 'boolean') out.detected = c.detected;
  if (SEVERITIES.has(c.severity)) out.severity = c.severity as string;
  return out;
}

/** A 400 whose body is Azure's content-filter refusal → its categories; null for any other body. */
export function contentFilterDetail(status: number, bodyText: string): UpstreamErrorDetail | null {
  if (status !== 400 || !bodyText.includes('content_filter')) return null;
  const error = asObject(asObject(parseJson(bodyText))?.error);
  if (error?.code !== 'content_filter') return null;
  const result = asObject(asObject(error.innererror)?.content_filter_result);
  const data: Record<string, FilterVerdict> = {};
  for (const name of CATEGORIES) {
    const verdict = verdictOf(result?.[name]);
    if (verdict) data[name] = verdict;
  }
  return { code: 'content_filter', data };
}
