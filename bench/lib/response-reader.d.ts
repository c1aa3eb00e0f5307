/** Types of response-reader.js (an incremental HTTP/1.1 response framer that counts SSE `data:` lines; see there). */
export class ResponseReader {
  status: number;
  chunked: boolean;
  /** `data:` lines seen in the body so far (0 when not counting). */
  events: number;
  /** Whether the whole response has been read. */
  complete: boolean;
  /** Ready for the next response; `countEvents: false` skips reading the body for `data:` lines. */
  reset(countEvents?: boolean): void;
  /** Read `buf[start, end)`; returns how far it read (less than `end` when the response completed first). */
  read(buf: Buffer, start: number, end: number, onFirstEvent?: () => void): number;
}
