/**
 * `language_type`: does an input contain source code (`programming`) or is it prose
 * (`natural`)? Two signals: `@vscode/vscode-languagedetection` (guesslang's model, shipped in
 * the package and loaded from disk, so it works offline) names a programming language with a
 * confidence; and the share of lines that look like code (brackets, operators, keywords at line
 * starts). The model is confident on longer code; the line test catches short snippets, on
 * which the model's confidence is as low as on prose.
 * @module
 */
import { ModelOperations } from '@vscode/vscode-languagedetection';
import type { LanguageType } from '../types';

/** Model confidence from which its top language alone decides `programming`. */
export const MODEL_CONFIDENCE = 0.2;
/** Share of non-empty lines that must look like code. */
export const CODE_LINE_SHARE = 0.4;

const CODE_LINE = [
  /[;{}]\s*$/, // statement ends, blocks
  /^\s*(def|class|function|fn|func|import|from|export|const|let|var|public|private|return|if|for|while|#include|package|using|SELECT|INSERT|UPDATE|CREATE)\b.*[:({=;]/,
  /^\s*[A-Za-z_$][\w$.]*\s*(=|\+=|-=|:=|=>)\s*\S/, // assignments
  /^\s*(\/\/|#!|\/\*|\*\/|<\/?[a-z][\w-]*[\s>])/, // comments, markup tags
  /\w+\(.*\)\s*(\{|;|:|->)?\s*$/, // calls and signatures, nested ones too
  /^\s*return\b/, // returns
  /^\s{2,}\S.*[(){}[\];=]/, // indented lines with code punctuation
];

/** Share of non-empty lines of `text` that look like code. */
export function codeLineShare(text: string): number {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return 0;
  let code = 0;
  for (const line of lines) if (CODE_LINE.some((re) => re.test(line))) code++;
  return code / lines.length;
}

/** Language-type detector; the model is loaded on first use and reused. */
export class LanguageTypeDetector {
  private model: ModelOperations | null = null;

  /** Classify `text`; a model failure falls back to the line test alone. */
  async detect(text: string): Promise<LanguageType> {
    if (codeLineShare(text) >= CODE_LINE_SHARE) return 'programming';
    this.model ??= new ModelOperations();
    const results = await this.model.runModel(text);
    const top = results[0];
    return top && top.confidence >= MODEL_CONFIDENCE ? 'programming' : 'natural';
  }

  /** Release the model's tensors. */
  dispose(): void {
    this.model?.dispose();
    this.model = null;
  }
}
