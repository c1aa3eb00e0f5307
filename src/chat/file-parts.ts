/**
 * File parts that name a file of the caller's workspace (`{type: "file", file: {file_id}}`): the
 * gateway reads it from `/files` and sends it inline (`file_data`, a `data:` URL with its sniffed
 * type), since an upstream knows nothing of the gateway's file ids. Done before the plan, so that
 * the prompt's size and the routing (endpoints that take files) see the file. Another workspace's
 * file answers 404, as `/files` does; the files of one request are bounded together. A wire
 * format that reads only some media (`ChatAdapter.media`: Anthropic's documents are PDFs and
 * text, Bedrock's a list of office types and it takes no image URLs) is left out of the plan for
 * a request holding others.
 * @module
 */
import type { ApiKeyRecord } from '../keys/types';
import type { FileService } from '../files/service';
import { ValidationError } from '../errors';
import { forgetRawJson } from '../http/raw-json-body';
import { chatAdapterFor } from '../providers/chat-registry';
import type { Endpoint } from '../catalog/types';
import { narrowedTo, type ChatPlan } from './plan';
import type { ChatBody, ChatContentPart } from './types';

type FilePart = Extract<ChatContentPart, { type: 'file' }>;

/** The file parts of `body` that still name a file by id. */
function byId(body: ChatBody): FilePart[] {
  const out: FilePart[] = [];
  for (const m of body.messages)
    if (Array.isArray(m.content))
      for (const p of m.content) if (p.type === 'file' && p.file.file_data === undefined) out.push(p);
  return out;
}

/** Replace each `file_id` of `body` by its content (in place); `maxBytes` bounds them together. */
export async function inlineFileParts(
  files: Pick<FileService, 'content'>,
  key: ApiKeyRecord,
  body: ChatBody,
  maxBytes: number,
): Promise<void> {
  const parts = byId(body);
  if (parts.length > 0) forgetRawJson(body);
  let total = 0;
  for (const [i, part] of parts.entries()) {
    const id = part.file.file_id;
    if (id === undefined)
      throw new ValidationError([
        { path: 'body.messages', message: 'a file part needs file.file_data or file.file_id' },
      ]);
    const { file, body: chunks } = await files.content(key, id, undefined);
    total += file.sizeBytes;
    if (total > maxBytes)
      throw new ValidationError([
        {
          path: 'body.messages',
          message: `the files named by file_id exceed ${maxBytes} bytes together (file ${i + 1})`,
        },
      ]);
    const bytes: Buffer[] = [];
    for await (const chunk of chunks) bytes.push(chunk);
    part.file = {
      filename: part.file.filename ?? file.filename,
      file_data: `data:${file.mimeType};base64,${Buffer.concat(bytes).toString('base64')}`,
    };
  }
}

/** The media of a request: its files' types, and whether an image is a remote URL. */
interface RequestMedia {
  types: string[];
  imageUrls: boolean;
}

function mediaOf(body: ChatBody): RequestMedia {
  const media: RequestMedia = { types: [], imageUrls: false };
  for (const m of body.messages)
    if (Array.isArray(m.content))
      for (const p of m.content)
        if (p.type === 'file') media.types.push(/^data:([^;,]+);/.exec(p.file.file_data ?? '')?.[1] ?? 'unknown');
        else if (p.type === 'image_url' && !p.image_url.url.startsWith('data:')) media.imageUrls = true;
  return media;
}

/** Whether an endpoint's format reads every file of `media` and its image URLs. */
function readsAll(e: Endpoint, media: RequestMedia): boolean {
  const reads = chatAdapterFor(e.provider.adapter).media;
  return !reads || ((!media.imageUrls || reads.imageUrls) && media.types.every((t) => reads.readsDocument(t)));
}

/** `plan` without the endpoints whose format cannot read the request's files or image URLs; a 400 when none is left. */
export function withFileRule(plan: ChatPlan, body: ChatBody): ChatPlan {
  // The prompt's one pass over the messages saw whether any part is a file or an image.
  const { modalities } = plan.prompt;
  if (!modalities.has('file') && !modalities.has('image')) return plan;
  const media = mediaOf(body);
  if (media.types.length === 0 && !media.imageUrls) return plan;
  const message = media.imageUrls
    ? `an image given by URL, or a file of type ${media.types[0] ?? 'none'}, is read by none of ${plan.primary.id}'s providers that are left (Bedrock takes images as data: URLs only; Anthropic's files are PDF and text)`
    : `a file of type ${media.types[0]} is read by none of ${plan.primary.id}'s providers (Anthropic's take PDF and text)`;
  return narrowedTo(
    plan,
    (e) => readsAll(e, media),
    () => new ValidationError([{ path: 'body.messages', message }]),
  );
}
