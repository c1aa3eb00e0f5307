/**
 * Which `@openrouter/sdk` methods call which route, read from the installed SDK's generated
 * sources (`esm/sdk.js` getters → namespace classes → `funcs/*.js` with their HTTP method and
 * path), so the SDK coverage test follows the SDK version the lockfile pins instead of a list
 * typed by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One SDK method and the route it calls. */
export interface SdkMethod {
  /** How a caller writes it: `apiKeys.create`. */
  call: string;
  /** Upper-case HTTP method. */
  method: string;
  /** The path under the server URL, parameters as `{}`: `/keys/{}`. */
  path: string;
  /** The generated request function it calls (`apiKeysCreate`). */
  func: string;
}

const SDK_ESM = path.join(path.dirname(require.resolve('@openrouter/sdk/package.json')), 'esm');

/** A route template with its parameters written `{}` (`/keys/:hash` and `/keys/{hash}` → `/keys/{}`). */
export function normalisePath(template: string): string {
  return template.replace(/\{[^}]+\}|:[A-Za-z_][A-Za-z0-9_]*/g, '{}');
}

function funcRoute(func: string): { method: string; path: string } | undefined {
  const text = readFileSync(path.join(SDK_ESM, 'funcs', `${func}.js`), 'utf8');
  const route = /pathToFunc\("([^"]+)"\)/.exec(text)?.[1];
  const method = /method: "([A-Z]+)"/.exec(text)?.[1];
  return route && method ? { method, path: normalisePath(route) } : undefined;
}

/** The route of every generated request function, by function name (`apiKeysCreate`), for a cross-check of {@link sdkMethods}. */
export function sdkFunctionRoutes(): Map<string, { method: string; path: string }> {
  const out = new Map<string, { method: string; path: string }>();
  for (const file of readdirSync(path.join(SDK_ESM, 'funcs')).filter((f) => f.endsWith('.js'))) {
    const route = funcRoute(file.slice(0, -3));
    if (route) out.set(file.slice(0, -3), route);
  }
  return out;
}

/** Every method of every namespace the `OpenRouter` client exposes, with its route. */
export function sdkMethods(): SdkMethod[] {
  const classes = new Map<string, string>(); // class name → file
  for (const file of readdirSync(path.join(SDK_ESM, 'sdk')).filter((f) => f.endsWith('.js'))) {
    for (const m of readFileSync(path.join(SDK_ESM, 'sdk', file), 'utf8').matchAll(
      /export class (\w+) extends ClientSDK/g,
    ))
      classes.set(m[1] as string, file);
  }
  const root = readFileSync(path.join(SDK_ESM, 'sdk', 'sdk.js'), 'utf8');
  const out: SdkMethod[] = [];
  for (const [, property, className] of root.matchAll(
    /get (\w+)\(\) \{\s*return \(this\._\w+ \?\? \(this\._\w+ = new (\w+)\(/g,
  )) {
    const file = classes.get(className as string);
    if (!file) continue;
    const source = readFileSync(path.join(SDK_ESM, 'sdk', file), 'utf8');
    for (const [, name, func] of source.matchAll(
      /async (\w+)\([^)]*\) \{\s*return (?:unwrapAsync|unwrapResultIterator)\((\w+)\(this/g,
    )) {
      const route = funcRoute(func as string);
      if (route) out.push({ call: `${property}.${name}`, func: func as string, ...route });
    }
  }
  return out;
}

/** `namespace.method` calls written in the SDK drivers (`test/**\/*.mjs`), e.g. `or.apiKeys.create(`. */
export function callsInDrivers(testRoot: string): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.mjs'))
        for (const m of readFileSync(full, 'utf8').matchAll(/\.(\w+)\.(\w+)\(/g)) found.add(`${m[1]}.${m[2]}`);
    }
  };
  walk(testRoot);
  return found;
}
