/**
 * `language_type`: does an input contain source code (`programming`) or is it prose
 * (`natural`)? Decided by the share of lines that look like code: statement ends, keywords,
 * assignments, calls, comments, preprocessor lines, imports, shell and SQL. An earlier version
 * also asked guesslang's model (`@vscode/vscode-languagedetection`, TF.js); on real files it
 * called much prose code and cost tens of megabytes, so the line test decides alone (the
 * figures are in docs/rankings.md).
 * @module
 */
import type { LanguageType } from '../types';

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
  /^\s*#\s*(include|define|undef|ifn?def|if|elif|else|endif|pragma)\b/, // the C preprocessor
  /^\s*(fi|done|then|do|esac|end|[)\]}][)\]};,]*)\s*$/, // block ends alone on a line
  /^\s*(import\s+[\w.]+|from\s+[\w.]+\s+import\s+.+)$/, // Python imports
  /^\s*"[^"\s]*",?\s*$/, // a quoted token alone (import lists, enum values)
  /\$\{?[A-Za-z_]\w*/, // shell and Perl variables
  /(\\|&&|\|\||;\s*(then|do))\s*$/, // shell continuations
  /^\s*[A-Za-z_][\w.]*,\s*$/, // one identifier of a list
  /^\s*(SELECT|WHERE|ORDER BY|GROUP BY|INSERT INTO|DELETE FROM|VALUES|ALTER TABLE|CREATE (TABLE|VIEW|INDEX|FUNCTION|PROCEDURE|TRIGGER|OR REPLACE)|DROP (TABLE|VIEW|INDEX)|((LEFT|RIGHT|INNER|OUTER) )?JOIN)\b/, // SQL clauses
  /^\s*`?\w+`?\s+(INT|INTEGER|BIGINT|SMALLINT|TINYINT|VARCHAR|CHAR|TEXT|BLOB|DATE|DATETIME|TIMESTAMP|BOOLEAN|DECIMAL|NUMERIC|FLOAT|DOUBLE|ENUM|SERIAL)\b/, // SQL columns
];

/** Share of non-empty lines of `text` that look like code. */
export function codeLineShare(text: string): number {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return 0;
  let code = 0;
  for (const line of lines) if (CODE_LINE.some((re) => re.test(line))) code++;
  return code / lines.length;
}

/** `programming` when at least {@link CODE_LINE_SHARE} of the non-empty lines look like code. */
export function detectLanguageType(text: string): LanguageType {
  return codeLineShare(text) >= CODE_LINE_SHARE ? 'programming' : 'natural';
}
