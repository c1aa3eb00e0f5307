/**
 * Media-type sniffing from a file's first bytes, never from the client's claim: the binary
 * formats the hosted service accepts (PDF, PNG, JPEG, GIF, WebP, MP3, WAV, FLAC, OGG, and the
 * Office Open XML trio) by their magic numbers, then UTF-8 text by {@link classifyText}.
 *
 * Why our own table rather than the `file-type` package: its current majors are ESM-only and
 * need a newer Node than ours, its last CommonJS major (16) no longer gets fixes, and the list
 * we accept is short and fixed. Anything not recognised is refused rather than stored as
 * `application/octet-stream`.
 * @module
 */
import { classifyText } from './text-kind';

/** How many leading bytes the sniffer looks at (also the window of the text classifier). */
export const SNIFF_BYTES = 64 * 1024;

/** Every media type an upload can be stored as. */
export const SUPPORTED_MEDIA_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'audio/mpeg',
  'audio/wav',
  'audio/flac',
  'audio/ogg',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/json',
  'application/x-ndjson',
  'text/csv',
  'text/markdown',
  'text/plain',
] as const;

/** One of {@link SUPPORTED_MEDIA_TYPES}. */
export type MediaType = (typeof SUPPORTED_MEDIA_TYPES)[number];

function startsWith(head: Uint8Array, bytes: readonly number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** Signatures at fixed offsets, checked in order. */
const MAGIC: ReadonlyArray<{ type: MediaType; test: (h: Uint8Array) => boolean }> = [
  { type: 'application/pdf', test: (h) => startsWith(h, ascii('%PDF-')) },
  { type: 'image/png', test: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', test: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', test: (h) => startsWith(h, ascii('GIF87a')) || startsWith(h, ascii('GIF89a')) },
  { type: 'image/webp', test: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8) },
  { type: 'audio/wav', test: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WAVE'), 8) },
  { type: 'audio/flac', test: (h) => startsWith(h, ascii('fLaC')) },
  { type: 'audio/ogg', test: (h) => startsWith(h, ascii('OggS')) },
  // MP3: an ID3v2 tag, or a bare MPEG audio frame header (11 sync bits, layer III, valid bitrate).
  { type: 'audio/mpeg', test: (h) => startsWith(h, ascii('ID3')) || isMp3Frame(h) },
];

function isMp3Frame(h: Uint8Array): boolean {
  if (h.length < 4 || h[0] !== 0xff) return false;
  const b1 = h[1] as number;
  const b2 = h[2] as number;
  const syncAndLayer3 = (b1 & 0xe0) === 0xe0 && (b1 & 0x06) === 0x02;
  const bitrate = b2 >> 4;
  const sampleRate = (b2 >> 2) & 0x03;
  return syncAndLayer3 && bitrate !== 0 && bitrate !== 0x0f && sampleRate !== 0x03;
}

const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];

/**
 * Office Open XML documents are ZIP archives told apart by their part names (`word/`, `xl/`,
 * `ppt/`). Entry names are read from every local file header in the window (scanning for the
 * signature rather than skipping by size, which is unknown when a data descriptor is used).
 */
function sniffOfficeZip(head: Uint8Array): MediaType | null {
  if (!startsWith(head, ZIP_LOCAL_HEADER)) return null;
  const view = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  let contentTypes = false;
  let found: MediaType | null = null;
  for (
    let at = view.indexOf(Buffer.from(ZIP_LOCAL_HEADER));
    at >= 0 && at + 30 <= view.length;
    at = view.indexOf(Buffer.from(ZIP_LOCAL_HEADER), at + 4)
  ) {
    const nameLength = view.readUInt16LE(at + 26);
    const name = view.toString('latin1', at + 30, Math.min(view.length, at + 30 + nameLength));
    if (name === '[Content_Types].xml') contentTypes = true;
    else if (!found && name.startsWith('word/'))
      found = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    else if (!found && name.startsWith('xl/'))
      found = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    else if (!found && name.startsWith('ppt/'))
      found = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
    if (found && contentTypes) return found;
  }
  // `[Content_Types].xml` may sit at the end of the archive, beyond the window: the part name decides.
  return found;
}

/**
 * The media type of a file from its first bytes.
 * @param head - the first {@link SNIFF_BYTES} bytes (fewer when the file is shorter)
 * @param complete - true when `head` is the whole file (lets the text classifier parse JSON fully)
 * @param filename - only a tie-breaker between text kinds the content cannot tell apart
 *   (Markdown prose without markup); never overrides what the content says
 * @returns the type, or null when the content is of no supported kind
 */
export function sniffMediaType(head: Uint8Array, complete: boolean, filename = ''): MediaType | null {
  for (const { type, test } of MAGIC) if (test(head)) return type;
  const office = sniffOfficeZip(head);
  if (office) return office;
  return classifyText(head, complete, filename);
}
