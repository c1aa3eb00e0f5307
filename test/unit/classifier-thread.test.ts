/**
 * The classifier thread runs with a bounded heap (`THREAD_HEAP_LIMITS`). Bounded, it must still
 * classify every input of the evaluation set, long code and prose alike, exactly as the same
 * classifier does in process, without the thread running out of memory and exiting.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClassifierThread } from '../../src/datasets/classify/thread';
import { classifyText } from '../../src/datasets/classify';
import { SAMPLE_CHARS } from '../../src/datasets/sampler';
import { TS_LOADER } from '../helpers/services';

const TEXTS: string[] = readFileSync(path.join(__dirname, '..', 'fixtures', 'categories.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => (JSON.parse(l) as { text: string }).text);

test('the bounded thread labels the evaluation set, and inputs of the longest sampled size, as the classifier does in process', async () => {
  const thread = new ClassifierThread(TS_LOADER);
  // The longest inputs the sampler sends: prose and code of SAMPLE_CHARS characters.
  const long = [TEXTS.join('\n').slice(0, SAMPLE_CHARS), TEXTS.join(' ').repeat(3).slice(0, SAMPLE_CHARS)];
  try {
    for (const text of [...TEXTS, ...long])
      expect([text.slice(0, 40), await thread.classify(text)]).toEqual([text.slice(0, 40), classifyText(text)]);
  } finally {
    await thread.close();
  }
}, 60_000);
