/**
 * Canonical parts as Converse content blocks: text, inline images (png, jpeg, gif, webp) and
 * documents (`{format, name, source: {bytes}}`, the name cleaned to the characters Bedrock
 * allows), tool calls as `toolUse`, tool results as `toolResult`, and Claude's own reasoning sent
 * back as `reasoningContent` (signed text, or redacted bytes). A text marked `cache_control`
 * is followed by a `cachePoint`. Image URLs never get here: the plan leaves Bedrock out for them
 * (src/chat/file-parts.ts), as Converse takes bytes only.
 * @module
 */
import type { Part } from '../../inference/exchange';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import type { BedrockBlock } from './types';

const IMAGE_FORMATS: Readonly<Record<string, NonNullable<BedrockBlock['image']>['format']>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** The document types Converse reads, by media type. */
export const DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/markdown': 'md',
  'text/plain': 'txt',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

/** A document name as Bedrock allows it: letters, digits, spaces, hyphens, parentheses and brackets, no runs of spaces. */
function documentName(filename: string | undefined, index: number): string {
  const base = (filename ?? '').replace(/\.[A-Za-z0-9]+$/, '');
  const clean = base
    .replace(/[^A-Za-z0-9\-()[\] ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return `${clean || 'document'}${index > 0 ? ` ${index + 1}` : ''}`;
}

/** Numbers the documents of one request, so that their names differ as Bedrock requires. */
export class DocumentNames {
  private next = 0;
  name(filename: string | undefined): string {
    return documentName(filename, this.next++);
  }
}

/** A content part (text, image, file) as blocks; none for an empty text or a type Converse has no form for. */
export function contentBlocks(p: Part, docs: DocumentNames): BedrockBlock[] {
  switch (p.type) {
    case 'text':
      if (p.text === '') return [];
      return p.cacheControl ? [{ text: p.text }, { cachePoint: { type: 'default' } }] : [{ text: p.text }];
    case 'image': {
      const format = p.source.kind === 'base64' ? IMAGE_FORMATS[p.source.mediaType] : undefined;
      return p.source.kind === 'base64' && format ? [{ image: { format, source: { bytes: p.source.data } } }] : [];
    }
    case 'file': {
      const format = p.data !== undefined ? DOCUMENT_FORMATS[p.mediaType ?? ''] : undefined;
      return format && p.data !== undefined
        ? [{ document: { format, name: docs.name(p.filename), source: { bytes: p.data } } }]
        : [];
    }
    case 'audio':
    case 'tool_call':
    case 'tool_result':
    case 'reasoning':
      // Audio has no Converse form (candidate selection never sends it here); the others are turns' own blocks.
      return [];
  }
}

/** Claude's reasoning of an assistant turn, which opens it: signed text, or redacted bytes (another provider's is left out). */
export function reasoningBlocks(parts: readonly Part[]): BedrockBlock[] {
  const out: BedrockBlock[] = [];
  for (const p of parts) {
    if (p.type !== 'reasoning' || p.format !== 'anthropic-claude-v1') continue;
    if (p.text === undefined && p.encrypted !== undefined)
      out.push({ reasoningContent: { redactedContent: p.encrypted } });
    else if (p.signature !== undefined)
      out.push({ reasoningContent: { reasoningText: { text: p.text ?? '', signature: p.signature } } });
  }
  return out;
}

/** A tool call as `toolUse` (its JSON arguments as the `input` object; `{}` when they are not one). */
export function toolUseBlock(p: Extract<Part, { type: 'tool_call' }>): BedrockBlock {
  return { toolUse: { toolUseId: p.id, name: p.name, input: asObject(parseJson(p.arguments)) ?? {} } };
}

/** A tool result as `toolResult`: its text, images and documents, `status: error` for a failed call. */
export function toolResultBlock(p: Extract<Part, { type: 'tool_result' }>, docs: DocumentNames): BedrockBlock {
  const content =
    typeof p.content === 'string' ? [{ text: p.content }] : p.content.flatMap((c) => contentBlocks(c, docs));
  return {
    toolResult: {
      toolUseId: p.callId,
      content: content.filter((b) => b.cachePoint === undefined),
      ...(p.isError ? { status: 'error' as const } : {}),
    },
  };
}
