/**
 * The sampler's classifier: language type first (the category uses it: code counts towards
 * `programming`), then the category.
 * @module
 */
import type { Classify } from '../sampler';
import { classifyCategory } from './category';
import { LanguageTypeDetector } from './language';

/** A classifier over one shared language model. */
export function createClassifier(detector = new LanguageTypeDetector()): Classify {
  return async (text) => {
    const languageType = await detector.detect(text);
    return { languageType, category: classifyCategory(text, languageType) };
  };
}
