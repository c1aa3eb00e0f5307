/**
 * The few schema problems that explain a refusal. For a failed `anyOf`/`oneOf`, ajv reports every
 * branch's problems plus its own "must match a schema in anyOf", and nested alternatives multiply:
 * one wrong content part of a chat message came out as 30 problems, most of them about branches
 * the client never meant (an assistant message, a tool message, an audio part). This keeps, for
 * each failed alternative, only the branch the value matched best:
 *
 * - a branch whose discriminator fails (`type` of the value itself, or a `const`/`enum` on one of
 *   its own properties such as `role` or `type`) is not the one meant, when another branch's
 *   discriminator matched;
 * - when every branch fails on the same discriminator, the answer is one problem naming what is
 *   allowed there (`type must be "text", "image_url" or "input_audio"`);
 * - otherwise the branch with the fewest problems wins, then the one whose problems go deepest.
 *
 * Branch membership is read from the errors' `parentSchema` (ajv's `verbose` option): an error
 * belongs to the branch whose schema reaches it, following `$ref`s through the registered schemas.
 * @module
 */
import type { ErrorObject } from 'ajv';

type Schema = Record<string, unknown>;

/** A problem, or a failed alternative with its branches' problems. */
interface Node {
  error: ErrorObject;
  branches?: Node[][];
}

/** Why a branch is not the one meant: where it failed, and what it would have accepted there. */
interface Mismatch {
  at: string;
  expected: string[];
}

/** The outcome of one failed alternative: the problems reported, and the mismatch when every branch had one. */
interface Choice {
  errors: ErrorObject[];
  mismatch: Mismatch | null;
}

/** Keywords holding one subschema, a map of them, or a list of them. */
const ONE = [
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The subschemas `node` applies (its `$defs` excluded unless `withDefs`, since definitions apply only through a `$ref`). */
function children(node: Schema, withDefs: boolean): Schema[] {
  const out: Schema[] = [];
  for (const k of ONE) if (isSchema(node[k])) out.push(node[k]);
  for (const k of LIST) if (Array.isArray(node[k])) for (const s of node[k] as unknown[]) if (isSchema(s)) out.push(s);
  for (const k of MAP) {
    if ((k === '$defs' || k === 'definitions') && !withDefs) continue;
    if (isSchema(node[k])) for (const s of Object.values(node[k])) if (isSchema(s)) out.push(s);
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** `a, b or c`. */
function listed(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

const depthOf = (path: string) => (path === '' ? 0 : path.split('/').length - 1);
const within = (path: string, base: string) => path === base || path.startsWith(`${base}/`);
const parentOf = (path: string) => path.slice(0, path.lastIndexOf('/'));

/** The schemas a set of errors was produced from, indexed so errors can be traced to their branch. */
export class SchemaGraph {
  private readonly byId = new Map<string, Schema>();
  private readonly rootOf = new WeakMap<object, Schema>();
  private readonly reachable = new WeakMap<object, WeakSet<object>>();

  /** @param schemas - every schema the validators were compiled from (each with its `$id`) */
  constructor(schemas: readonly object[]) {
    for (const root of schemas as readonly Schema[]) {
      if (typeof root.$id === 'string') this.byId.set(root.$id, root);
      const stack = [root];
      for (let s = stack.pop(); s; s = stack.pop()) {
        if (this.rootOf.has(s)) continue;
        this.rootOf.set(s, root);
        stack.push(...children(s, true));
      }
    }
  }

  /**
   * Reduce ajv's errors (from a validator compiled with `verbose: true`) to the problems that explain
   * the refusal; see the module comment. Errors without `parentSchema` (a validator compiled without
   * `verbose`, which stops at the first problem) cannot be traced to branches: the deepest one is kept.
   */
  explain(errors: readonly ErrorObject[]): ErrorObject[] {
    if (errors.length === 0) return [];
    if (errors.some((e) => !isSchema(e.parentSchema))) return [deepest(errors)];
    const nodes: Node[] = [];
    for (const error of errors) {
      const alternative = (error.keyword === 'anyOf' || error.keyword === 'oneOf') && Array.isArray(error.schema);
      nodes.push(alternative ? { error, branches: this.branchesOf(error, nodes) } : { error });
    }
    // Branches reached through the same `$ref` can report one problem twice.
    const seen = new Set<string>();
    return flatten(nodes).filter((e) => {
      const key = `${e.instancePath}\u0000${e.keyword}\u0000${JSON.stringify(e.params)}\u0000${e.message ?? ''}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /**
   * Take the problems of `alt`'s branches off the end of `nodes` (ajv reports them just before it,
   * branch after branch), grouped by branch. A schema reached through a `$ref` can belong to several
   * branches (a user and a tool message share `content`), so the grouping is the one that keeps
   * the branches in order and gives each failed branch at least one problem, staying in a branch
   * as long as that remains possible.
   */
  private branchesOf(alt: ErrorObject, nodes: Node[]): Node[][] {
    const branches = alt.schema as unknown[];
    const m = branches.length;
    const groups: Node[][] = branches.map(() => []);
    let start = nodes.length;
    while (start > 0) {
      const prev = (nodes[start - 1] as Node).error;
      if (
        !within(prev.instancePath, alt.instancePath) ||
        !branches.some((b) => this.reaches(b, prev.parentSchema as object))
      )
        break;
      start--;
    }
    const range = nodes.splice(start);
    const n = range.length;
    if (n === 0) return groups;
    const fits = (k: number, b: number) => this.reaches(branches[b], (range[k] as Node).error.parentSchema as object);
    // ok[k][b]: nodes k… can be given to branches b…m-1 in order, each of those branches getting one at least.
    const ok: boolean[][] = Array.from({ length: n + 1 }, () => new Array<boolean>(m + 1).fill(false));
    for (let k = n - 1; k >= 0; k--) {
      for (let b = m - 1; b >= 0; b--) {
        const rest = k === n - 1 ? b === m - 1 : (ok[k + 1] as boolean[])[b] || (ok[k + 1] as boolean[])[b + 1];
        (ok[k] as boolean[])[b] = fits(k, b) && Boolean(rest);
      }
    }
    let b = 0;
    for (let k = 0; k < n; k++) {
      if ((ok[0] as boolean[])[0]) {
        if (k > 0 && !(ok[k] as boolean[])[b]) b++;
      } else {
        // No such grouping (ajv reported a branch without problems): each in the first branch it fits, in order.
        while (b < m - 1 && !fits(k, b)) b++;
      }
      (groups[b] as Node[]).push(range[k] as Node);
    }
    return groups;
  }

  /** Whether `target` is `branch` or a subschema it applies, `$ref`s followed. */
  private reaches(branch: unknown, target: object): boolean {
    if (!isSchema(branch)) return false;
    let set = this.reachable.get(branch);
    if (!set) {
      set = new WeakSet();
      const stack: Schema[] = [branch];
      const seen = new Set<Schema>();
      for (let s = stack.pop(); s; s = stack.pop()) {
        if (seen.has(s)) continue;
        seen.add(s);
        set.add(s);
        stack.push(...children(s, false));
        const target = typeof s.$ref === 'string' ? this.resolve(s.$ref, s) : undefined;
        if (target) stack.push(target);
      }
      this.reachable.set(branch, set);
    }
    return set.has(target);
  }

  /** The schema `ref` names, from the schema `from` holding it: `#/$defs/x` in the same root, `defs#/$defs/x` in another. */
  private resolve(ref: string, from: Schema): Schema | undefined {
    const hash = ref.indexOf('#');
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const pointer = hash < 0 ? '' : ref.slice(hash + 1);
    let node: unknown = base === '' ? this.rootOf.get(from) : this.byId.get(base);
    for (const raw of pointer.split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = isSchema(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
    }
    return isSchema(node) ? node : undefined;
  }
}

/** The first of the deepest errors that are not a combinator's own summary. */
function deepest(errors: readonly ErrorObject[]): ErrorObject {
  const leaves = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const pool = leaves.length > 0 ? leaves : errors;
  return pool.reduce((best, e) => (depthOf(e.instancePath) > depthOf(best.instancePath) ? e : best));
}

function flatten(nodes: readonly Node[]): ErrorObject[] {
  return nodes.flatMap((n) => (n.branches ? choose(n).errors : [n.error]));
}

/** What a branch's own discriminator says about it: the mismatch found at its value or one of its properties, if any. */
function mismatchOf(group: readonly Node[], at: string): Mismatch | null {
  for (const { error: e, branches } of group) {
    if (branches) {
      if (e.instancePath !== at) continue;
      const inner = choose({ error: e, branches }).mismatch;
      if (inner) return inner;
    } else if (e.keyword === 'type' && e.instancePath === at) {
      const type = (e.params as { type?: unknown }).type;
      const types = Array.isArray(type) ? type.map(String) : typeof type === 'string' ? type.split(',') : [];
      return { at, expected: types.map((t) => TYPE_WORDS[t] ?? t) };
    } else if (
      (e.keyword === 'const' || e.keyword === 'enum') &&
      (e.instancePath === at || parentOf(e.instancePath) === at)
    ) {
      const p = e.params as { allowedValue?: unknown; allowedValues?: unknown[] };
      const values = e.keyword === 'const' ? [p.allowedValue] : (p.allowedValues ?? []);
      return { at: e.instancePath, expected: values.map((v) => JSON.stringify(v)) };
    }
  }
  return null;
}

/** Rank branches' problems: fewer first, then deeper (a branch that got further into the value). */
function better(a: ErrorObject[], b: ErrorObject[]): boolean {
  if (a.length !== b.length) return a.length < b.length;
  const deep = (list: ErrorObject[]) => list.reduce((d, e) => Math.max(d, depthOf(e.instancePath)), 0);
  return deep(a) > deep(b);
}

/** The problems of one failed alternative; see the module comment. */
function choose(node: Node): Choice {
  const { error } = node;
  const passing = (error.params as { passingSchemas?: unknown }).passingSchemas;
  const groups = (node.branches ?? []).filter((g) => g.length > 0);
  // A oneOf that more than one branch matched, or branches that reported nothing: ajv's own words.
  if ((passing !== undefined && passing !== null) || groups.length === 0) return { errors: [error], mismatch: null };
  const results = groups.map((g) => ({ errors: flatten(g), mismatch: mismatchOf(g, error.instancePath) }));
  const matching = results.filter((r) => r.mismatch === null);
  const pool = matching.length > 0 ? matching : results;
  if (matching.length === 0) {
    const at = (results[0] as (typeof results)[number]).mismatch?.at;
    if (results.every((r) => r.mismatch?.at === at) && at !== undefined) {
      const expected = [...new Set(results.flatMap((r) => r.mismatch?.expected ?? []))];
      const summary: ErrorObject = {
        ...error,
        instancePath: at,
        keyword: error.keyword,
        params: {},
        message: `must be ${listed(expected)}`,
      };
      return { errors: [summary], mismatch: { at, expected } };
    }
  }
  let best = pool[0] as (typeof pool)[number];
  for (const r of pool.slice(1)) if (better(r.errors, best.errors)) best = r;
  return { errors: best.errors, mismatch: null };
}
