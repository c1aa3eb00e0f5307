/**
 * The classifier thread's entry: classifies the texts it is sent and answers each by id. The
 * language model's inference is synchronous CPU work (milliseconds per input), so it runs here,
 * never on the thread that serves requests.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { createClassifier } from './index';

/** A request to the thread. */
export interface ClassifyRequest {
  id: number;
  text: string;
}

/** The thread's answer: the classification, or the error's message. */
export type ClassifyReply = { id: number; languageType: 'natural' | 'programming'; category: string | null } | { id: number; error: string };

const classify = createClassifier();
const port = parentPort;
port?.on('message', (m: ClassifyRequest) => {
  classify(m.text).then(
    (r) => port.postMessage({ id: m.id, ...r } satisfies ClassifyReply),
    (err: unknown) => port.postMessage({ id: m.id, error: (err as Error).message } satisfies ClassifyReply),
  );
});
