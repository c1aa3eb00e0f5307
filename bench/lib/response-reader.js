/**
 * An incremental reader of one HTTP/1.1 response at a time, for the benchmarks' paced client
 * (bench/lib/paced-worker.js). Embeddings answers come with a Content-Length; chat streams come
 * chunked, and their time to first byte is the first SSE `data:` event, not the status line (a
 * gateway sends its headers before it has any content). So this reader frames both Content-Length
 * and chunked bodies and, when asked to count events, watches the body for lines that start with
 * `data:`: when the first one arrives (time to first event) and how many there were (a check that
 * the whole stream came through). It works on byte ranges of a caller's buffer and keeps no copy
 * of the body, so reading allocates next to nothing per response.
 */
'use strict';
const { Buffer } = require('node:buffer');

const CR = 13;
const LF = 10;
const DATA = Buffer.from('data:', 'latin1');

/** Chunked body states. */
const SIZE = 0; // reading the hex size line up to its LF (extensions ignored)
const CHUNK = 1; // reading `left` bytes of chunk data
const CHUNK_END = 2; // the CRLF after a chunk's data
const TRAILER = 3; // after the last (0) chunk: trailer lines up to an empty one

class ResponseReader {
  constructor() {
    this.reset();
  }

  /**
   * Ready for the next response on the connection. `countEvents: false` skips the body scan for
   * `data:` lines (a 1.2 MB embeddings answer would otherwise be read byte by byte for nothing).
   */
  reset(countEvents = true) {
    this.countEvents = countEvents;
    this.head = '';
    this.ends = 0; // how many bytes of "\r\n\r\n" the header text ends with so far
    this.inBody = false;
    this.status = 0;
    this.chunked = false;
    this.left = 0; // Content-Length: body bytes still to come; chunked: bytes of the current chunk
    this.state = SIZE;
    this.size = 0;
    this.sizeDigits = true; // still inside the hex digits of the size line
    this.lineBytes = 0; // bytes on the current trailer line
    this.match = 0; // bytes of "data:" matched at the start of the current line; -1 once the line can no longer match
    this.events = 0; // `data:` lines seen in the body
    this.complete = false;
  }

  /**
   * Read `buf[start, end)`. Returns how far it read: `end`, or less when the response completed
   * before `end` (the rest is not this response's). Throws on a response it cannot frame.
   * `onFirstEvent()` is called once, when the body's first `data:` line starts.
   */
  read(buf, start, end, onFirstEvent) {
    let at = start;
    if (!this.inBody) {
      while (at < end && this.ends < 4) {
        const b = buf[at];
        this.ends = b === (this.ends % 2 === 0 ? CR : LF) ? this.ends + 1 : b === CR ? 1 : 0;
        at += 1;
      }
      this.head += buf.toString('latin1', start, at);
      if (this.ends < 4) return at;
      this.headers();
      if (this.complete) return at;
    }
    if (!this.chunked) {
      const n = Math.min(this.left, end - at);
      this.scan(buf, at, at + n, onFirstEvent);
      this.left -= n;
      if (this.left === 0) this.complete = true;
      return at + n;
    }
    while (at < end && !this.complete) {
      const b = buf[at];
      if (this.state === CHUNK) {
        const n = Math.min(this.left, end - at);
        this.scan(buf, at, at + n, onFirstEvent);
        this.left -= n;
        at += n;
        if (this.left === 0) this.state = CHUNK_END;
        continue;
      }
      at += 1;
      if (this.state === SIZE) {
        if (b === LF) {
          this.left = this.size;
          this.size = 0;
          this.sizeDigits = true;
          this.state = this.left === 0 ? TRAILER : CHUNK;
          this.lineBytes = 0;
        } else if (this.sizeDigits && hexValue(b) >= 0) this.size = this.size * 16 + hexValue(b);
        else if (b !== CR) this.sizeDigits = false;
      } else if (this.state === CHUNK_END) {
        if (b === LF) this.state = SIZE;
        else if (b !== CR) throw new Error('chunked body: no CRLF after a chunk');
      } else if (b === LF) {
        if (this.lineBytes === 0) this.complete = true;
        this.lineBytes = 0;
      } else if (b !== CR) this.lineBytes += 1;
    }
    return at;
  }

  /** The header block is in: status and framing. */
  headers() {
    this.inBody = true;
    this.status = Number(this.head.slice(9, 12));
    this.chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(this.head);
    if (this.chunked) return;
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(this.head);
    if (length === null) throw new Error('response with neither Content-Length nor chunked encoding');
    this.left = Number(length[1]);
    if (this.left === 0) this.complete = true;
  }

  /** Body bytes `buf[from, to)`: count lines that start with `data:` (if counting). */
  scan(buf, from, to, onFirstEvent) {
    if (!this.countEvents) return;
    for (let i = from; i < to; i++) {
      const b = buf[i];
      if (b === LF) this.match = 0;
      else if (this.match >= 0) {
        if (b === DATA[this.match]) {
          this.match += 1;
          if (this.match === DATA.length) {
            this.match = -1;
            this.events += 1;
            if (this.events === 1 && onFirstEvent) onFirstEvent();
          }
        } else this.match = -1;
      }
    }
  }
}

function hexValue(b) {
  if (b >= 48 && b <= 57) return b - 48;
  if (b >= 97 && b <= 102) return b - 87;
  if (b >= 65 && b <= 70) return b - 55;
  return -1;
}

module.exports = { ResponseReader };
