/**
 * The checks an upload's bytes pass through on their way to storage, without buffering them:
 * the size limit (413 as soon as one byte too many arrives), the empty-file rule (400), and the
 * media type, sniffed as soon as the first {@link SNIFF_BYTES} are in (so an unsupported file is
 * refused before the rest is stored).
 * @module
 */
import { PayloadTooLargeError, ValidationError } from '../errors';
import { SNIFF_BYTES, SUPPORTED_MEDIA_TYPES, sniffMediaType, type MediaType } from './sniff';

/** What {@link inspectUpload} learned; `mediaType` is set once the source is exhausted. */
export interface UploadFacts {
  mediaType: MediaType | null;
  sizeBytes: number;
}

/**
 * Pass `source` through unchanged while enforcing the upload rules.
 * @param facts - filled in as the bytes flow; read it after the consumer finished
 * @throws PayloadTooLargeError past `maxBytes`; ValidationError for an empty or unsupported file
 */
export async function* inspectUpload(
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
  filename: string,
  facts: UploadFacts,
): AsyncGenerator<Uint8Array> {
  const head: Uint8Array[] = [];
  let headBytes = 0;
  const sniff = (complete: boolean) => {
    const type = sniffMediaType(Buffer.concat(head, headBytes), complete, filename);
    head.length = 0;
    if (!type) {
      throw new ValidationError(
        [{ path: 'body.file', message: `unsupported file type; supported: ${SUPPORTED_MEDIA_TYPES.join(', ')}` }],
        'Unsupported file type',
      );
    }
    facts.mediaType = type;
  };
  for await (const piece of source) {
    facts.sizeBytes += piece.length;
    if (facts.sizeBytes > maxBytes) throw new PayloadTooLargeError(maxBytes);
    if (!facts.mediaType && headBytes < SNIFF_BYTES) {
      const take = piece.subarray(0, SNIFF_BYTES - headBytes);
      head.push(Buffer.from(take)); // a copy: the source may reuse its buffer
      headBytes += take.length;
      if (headBytes >= SNIFF_BYTES) sniff(false);
    }
    yield piece;
  }
  if (facts.sizeBytes === 0) throw new ValidationError([{ path: 'body.file', message: 'the file is empty' }]);
  if (!facts.mediaType) sniff(true);
}
