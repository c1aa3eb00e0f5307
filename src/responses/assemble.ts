/**
 * A whole Responses answer from the door's own stream (a whole answer read as a stream so that
 * the budget could meter it): the response object of its closing event (`response.completed`,
 * `response.incomplete`), which every view writes whole, output and billed usage included.
 * @module
 */
import { RawObject } from '../providers/raw-object';
import { SseSplitter } from '../providers/sse';

/** The closing event's response object, as written. */
export function assembleResponse(events: string): string {
  const last = Math.max(0, events.lastIndexOf('event: response.'));
  const sse = new SseSplitter();
  for (const e of [...sse.push(Buffer.from(events.slice(last))), ...sse.end()]) {
    const response = new RawObject(Buffer.from(e.data)).object('response');
    if (response) return response.bytes.toString('utf8');
  }
  throw new Error('a gathered Responses stream ended without its closing event');
}
