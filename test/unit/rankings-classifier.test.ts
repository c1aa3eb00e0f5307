/**
 * The rankings classifiers against the labelled evaluation set `test/fixtures/categories.jsonl`
 * (120 inputs written for it: ten per category minus a few, ten with no category, 12 with code).
 * The measured accuracies are printed and stated in docs/rankings.md; the test holds them above
 * floors so that a rule change that makes them worse fails. Also: the language model loads
 * offline from the package, and the category classifier's tie rule and empty input.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LanguageTypeDetector, codeLineShare } from '../../src/datasets/classify/language';
import { classifyCategory } from '../../src/datasets/classify/category';
import { createClassifier } from '../../src/datasets/classify';

interface Example {
  text: string;
  category: string | null;
  language_type: 'natural' | 'programming';
}

const EXAMPLES: Example[] = readFileSync(path.join(__dirname, '..', 'fixtures', 'categories.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Example);

describe('rankings classifiers on the evaluation set', () => {
  const detector = new LanguageTypeDetector();
  afterAll(() => detector.dispose());

  test('the set has 100+ labelled examples covering all twelve categories and none', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(EXAMPLES.map((e) => e.category)).size).toBe(13);
  });

  test('language_type accuracy (model + line test)', async () => {
    let right = 0;
    const wrong: string[] = [];
    for (const e of EXAMPLES) {
      const got = await detector.detect(e.text);
      if (got === e.language_type) right++;
      else wrong.push(`${e.language_type} → ${got}: ${e.text.slice(0, 60)}`);
    }
    const accuracy = right / EXAMPLES.length;
    process.stdout.write(`language_type accuracy ${right}/${EXAMPLES.length} = ${(accuracy * 100).toFixed(1)} %\n${wrong.join('\n')}\n`);
    expect(accuracy).toBeGreaterThanOrEqual(0.95);
  }, 120_000);

  test('category accuracy (rules; language type from the detector)', async () => {
    const classify = createClassifier(detector);
    let right = 0;
    const wrong: string[] = [];
    for (const e of EXAMPLES) {
      const { category } = await classify(e.text);
      if (category === e.category) right++;
      else wrong.push(`${e.category} → ${category}: ${e.text.slice(0, 60)}`);
    }
    const accuracy = right / EXAMPLES.length;
    process.stdout.write(`category accuracy ${right}/${EXAMPLES.length} = ${(accuracy * 100).toFixed(1)} %\n${wrong.join('\n')}\n`);
    expect(accuracy).toBeGreaterThanOrEqual(0.85);
  }, 120_000);

  test('the model loads offline (from the package, with fetch refused) and names a language for long code', async () => {
    const code = EXAMPLES.filter((e) => e.language_type === 'programming').map((e) => e.text).join('\n\n');
    const model = new (await import('@vscode/vscode-languagedetection')).ModelOperations();
    const realFetch = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = (() => {
      fetched++;
      return Promise.reject(new Error('offline'));
    }) as typeof fetch;
    try {
      const results = await model.runModel(code);
      expect(results.length).toBeGreaterThan(0);
      expect(fetched).toBe(0);
    } finally {
      globalThis.fetch = realFetch;
      model.dispose();
    }
  });

  test('no term, no category; ties go to the earlier rule', () => {
    expect(classifyCategory('')).toBeNull();
    expect(classifyCategory('lorem ipsum dolor sit amet')).toBeNull();
    // One weak term each of marketing ("brand") and technology ("software"): marketing comes first.
    expect(classifyCategory('brand software')).toBe('marketing');
    expect(codeLineShare('')).toBe(0);
  });
});
