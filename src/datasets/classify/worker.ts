/**
 * The classifier thread's entry: classifies the texts it is sent and answers each by id. The
 * category rules are synchronous regex work (milliseconds on a long input), so they run here,
 * never on the thread that serves requests.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { classifyText } from './index';

/** A request to the thread. */
export interface ClassifyRequest {
  id: number;
  text: string;
}

/** The thread's answer: the classification, or the error's message. */
export type ClassifyReply = { id: number; languageType: 'natural' | 'programming'; category: string | null } | { id: number; error: string };

const port = parentPort;
port?.on('message', (m: ClassifyRequest) => {
  let reply: ClassifyReply;
  try {
    reply = { id: m.id, ...classifyText(m.text) };
  } catch (err) {
    reply = { id: m.id, error: (err as Error).message };
  }
  port.postMessage(reply);
});
