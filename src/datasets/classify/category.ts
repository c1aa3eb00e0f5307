/**
 * The category classifier: scores an input against {@link CATEGORY_RULES} (strong terms 2,
 * weak terms 1, each term counted once) and answers the best-scoring category, or none when no
 * term matched. Code in the input adds to `programming`. Pure and regex-only over bounded text
 * (the sampler passes at most a few thousand characters), with patterns that are ours, never a
 * tenant's.
 * @module
 */
import type { Category, LanguageType } from '../types';
import { CATEGORY_RULES } from './category-rules';

function termPattern(term: string): string {
  return term.endsWith('*') ? `${term.slice(0, -1)}[\\w-]*` : term;
}

/** Each rule compiled to one regex per weight, matched globally to find the distinct terms present. */
const COMPILED = CATEGORY_RULES.map((rule) => ({
  category: rule.category,
  parts: (
    [
      [2, rule.strong],
      [1, rule.weak],
    ] as const
  ).map(([weight, terms]) => ({
    weight,
    terms: terms.map((t) => new RegExp(`(?<![\\w-])${termPattern(t)}(?![\\w-])`, 'i')),
  })),
}));

/** Score per category of `text` (only categories with a match). */
export function categoryScores(text: string, languageType: LanguageType = 'natural'): Map<Category, number> {
  const scores = new Map<Category, number>();
  for (const rule of COMPILED) {
    let score = 0;
    for (const part of rule.parts) for (const re of part.terms) if (re.test(text)) score += part.weight;
    if (rule.category === 'programming' && languageType === 'programming') score += 3;
    if (score > 0) scores.set(rule.category, score);
  }
  return scores;
}

/** The category of `text`, or null when nothing suggests one. Ties go to the earlier rule. */
export function classifyCategory(text: string, languageType: LanguageType = 'natural'): Category | null {
  let best: Category | null = null;
  let bestScore = 0;
  for (const [category, score] of categoryScores(text, languageType)) {
    if (score > bestScore) {
      best = category;
      bestScore = score;
    }
  }
  return best;
}
