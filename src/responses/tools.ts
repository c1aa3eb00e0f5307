/**
 * The Responses door's tools as canonical functions, and the way back. Function tools go out as
 * they are; a `custom` tool (free-form text, e.g. Codex's `apply_patch` with its lark grammar) goes
 * out as a function of one string argument `input` whose description carries the grammar, and its
 * calls come back as `custom_tool_call` items; the function and custom tools of a `namespace` go
 * out named `<namespace>__<name>` and come back with their `namespace`. Hosted tools no candidate
 * runs (`web_search`, `tool_search`, `file_search`, `computer_use_preview`, `mcp` …) are left out
 * and named ({@link ToolSet.leftOut}; the route sends them in `X-Switchyard-Tools-Left-Out`).
 * @module
 */
import type { Tool } from '../inference/exchange';
import { asObject } from '../providers/parse';
import { parseJson } from '../providers/raw-json';
import type { CustomToolParam, FunctionToolParam, NamespaceToolParam, RequestTool } from './types';

/** Between a namespace and a tool's name in the canonical name. */
export const NAMESPACE_SEPARATOR = '__';

/** What a canonical tool name stands for in the client's request. */
export interface ToolOrigin {
  kind: 'function' | 'custom';
  name: string;
  namespace?: string;
}

/** The request's tools, read once. */
export interface ToolSet {
  tools: Tool[];
  /** The types of the hosted tools left out, each once, in order. */
  leftOut: string[];
  /** The client's tool behind a canonical name (a plain function when the name is unknown). */
  origin(name: string): ToolOrigin;
}

type FunctionLike = FunctionToolParam | CustomToolParam;

/** The canonical name of a tool (or of a call the client sent back) in `namespace`. */
export function canonicalName(name: string, namespace?: string | null): string {
  return namespace ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;
}

/** A custom tool as a function of one string argument. */
function customFunction(t: CustomToolParam, name: string): Tool {
  const lines = [t.description ?? `The ${t.name} tool.`];
  lines.push('Call it with its whole free-form input as the one string argument `input`.');
  const f = t.format;
  if (f?.type === 'grammar' && f.definition)
    lines.push(`The input must match this ${f.syntax ?? 'lark'} grammar:`, f.definition);
  return {
    name,
    description: lines.join('\n\n'),
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: `The free-form input of ${t.name}` } },
      required: ['input'],
      additionalProperties: false,
    },
  };
}

function functionOf(t: FunctionLike, namespace?: string): { tool: Tool; origin: ToolOrigin } {
  const name = canonicalName(t.name, namespace);
  const origin: ToolOrigin = namespace ? { kind: t.type, name: t.name, namespace } : { kind: t.type, name: t.name };
  if (t.type === 'custom') return { tool: customFunction(t, name), origin };
  const tool: Tool = { name };
  if (typeof t.description === 'string') tool.description = t.description;
  if (t.parameters) tool.parameters = t.parameters;
  if (typeof t.strict === 'boolean') tool.strict = t.strict;
  return { tool, origin };
}

/** Read the request's `tools`. */
export function toolSetOf(tools: readonly RequestTool[] | undefined): ToolSet {
  const out: Tool[] = [];
  const leftOut: string[] = [];
  const origins = new Map<string, ToolOrigin>();
  const add = (t: FunctionLike, namespace?: string) => {
    const { tool, origin } = functionOf(t, namespace);
    out.push(tool);
    origins.set(tool.name, origin);
  };
  for (const t of tools ?? []) {
    if (t.type === 'function' || t.type === 'custom') add(t as FunctionLike);
    else if (t.type === 'namespace') {
      const ns = t as NamespaceToolParam;
      for (const inner of ns.tools) add(inner, ns.name);
    } else if (!leftOut.includes(t.type)) leftOut.push(t.type);
  }
  return { tools: out, leftOut, origin: (name) => origins.get(name) ?? { kind: 'function', name } };
}

/**
 * A custom tool's input from the arguments the model gave its function: the `input` string, else
 * the one string the object holds, else the arguments as they came (never dropped).
 */
export function customInputOf(args: string): string {
  const o = asObject(parseJson(args));
  if (!o) return args;
  if (typeof o.input === 'string') return o.input;
  const strings = Object.values(o).filter((v): v is string => typeof v === 'string');
  return strings.length === 1 && Object.keys(o).length === 1 ? strings[0]! : args;
}
