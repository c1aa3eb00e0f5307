/**
 * The rankings classifiers against the labelled evaluation set `test/fixtures/categories.jsonl`
 * (120 inputs written for it: ten per category minus a few, ten with no category, 12 with code).
 * The measured accuracies are printed and stated in docs/rankings.md; the test holds them above
 * floors so that a rule change that makes them worse fails. Also: the line test's patterns one by
 * one, and the category classifier's tie rule and empty input.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { codeLineShare, detectLanguageType } from '../../src/datasets/classify/language';
import { classifyCategory } from '../../src/datasets/classify/category';
import { classifyText } from '../../src/datasets/classify';

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
  test('the set has 100+ labelled examples covering all twelve categories and none', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(EXAMPLES.map((e) => e.category)).size).toBe(13);
  });

  test('language_type accuracy (line test)', () => {
    let right = 0;
    const wrong: string[] = [];
    for (const e of EXAMPLES) {
      const got = detectLanguageType(e.text);
      if (got === e.language_type) right++;
      else wrong.push(`${e.language_type} → ${got}: ${e.text.slice(0, 60)}`);
    }
    const accuracy = right / EXAMPLES.length;
    process.stdout.write(
      `language_type accuracy ${right}/${EXAMPLES.length} = ${(accuracy * 100).toFixed(1)} %\n${wrong.join('\n')}\n`,
    );
    expect(accuracy).toBeGreaterThanOrEqual(0.95);
  });

  test('category accuracy (rules; language type from the line test)', () => {
    let right = 0;
    const wrong: string[] = [];
    for (const e of EXAMPLES) {
      const { category } = classifyText(e.text);
      if (category === e.category) right++;
      else wrong.push(`${e.category} → ${category}: ${e.text.slice(0, 60)}`);
    }
    const accuracy = right / EXAMPLES.length;
    process.stdout.write(
      `category accuracy ${right}/${EXAMPLES.length} = ${(accuracy * 100).toFixed(1)} %\n${wrong.join('\n')}\n`,
    );
    expect(accuracy).toBeGreaterThanOrEqual(0.85);
  });

  test.each([
    ['#include <stdio.h>\n#define MAX 10', 'programming'],
    ['import os\nfrom pathlib import Path', 'programming'],
    ['if [ -n "$HOME" ]; then\n  echo done\nfi', 'programming'],
    ['SELECT id, name\nFROM users\nWHERE active\nORDER BY name', 'programming'],
    ['CREATE TABLE t (\n  id INTEGER NOT NULL,\n  name VARCHAR(64)\n)', 'programming'],
    ['import (\n\t"fmt"\n\t"os"\n)', 'programming'],
    [
      'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,\nEXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF\nMERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.',
      'natural',
    ],
    [
      'Bugs should be reported to the tracker.\nPlease include the version you run,\nand what you expected to happen.',
      'natural',
    ],
  ])('%j is %s', (text, expected) => {
    expect(detectLanguageType(text)).toBe(expected);
  });

  test('no term, no category; ties go to the earlier rule', () => {
    expect(classifyCategory('')).toBeNull();
    expect(classifyCategory('lorem ipsum dolor sit amet')).toBeNull();
    // One weak term each of marketing ("brand") and technology ("software"): marketing comes first.
    expect(classifyCategory('brand software')).toBe('marketing');
    expect(codeLineShare('')).toBe(0);
  });
});
