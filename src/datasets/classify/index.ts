/**
 * The sampler's classifier: language type first (the category uses it: code counts towards
 * `programming`), then the category.
 * @module
 */
import type { Classification } from '../sampler';
import { classifyCategory } from './category';
import { detectLanguageType } from './language';

/** Classify one input (pure; the sampler runs it on its thread, see `thread.ts`). */
export function classifyText(text: string): Classification {
  const languageType = detectLanguageType(text);
  return { languageType, category: classifyCategory(text, languageType) };
}
