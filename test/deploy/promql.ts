/**
 * PromQL as Prometheus's own grammar reads it (`@prometheus-io/lezer-promql`, the parser of the
 * Prometheus UI): the metric names an expression selects, and its syntax errors. Grafana's
 * interval variables are given a duration first, since they are not PromQL.
 */
import { createRequire } from 'node:module';

// The package is ESM with a CommonJS build beside it ("require" in its exports), which jest loads;
// TypeScript types it as ESM only, so it is required explicitly, typed by a type-only import.
type LezerPromql = typeof import('@prometheus-io/lezer-promql', { with: { 'resolution-mode': 'import' } });
const { parser } = createRequire(__filename)('@prometheus-io/lezer-promql') as LezerPromql;

/** Grafana's built-in interval variables, replaced before parsing. */
const GRAFANA_INTERVALS = /\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}/g;

/** What one expression selects, and where it does not parse. */
export interface PromqlReading {
  metrics: string[];
  problems: string[];
}

/** Read `expr`: every metric name in a vector or range selector, and its syntax errors (with the text at each). */
export function readPromql(expr: string): PromqlReading {
  const text = expr.replace(GRAFANA_INTERVALS, '5m');
  const metrics = new Set<string>();
  const problems: string[] = [];
  parser.parse(text).iterate({
    enter(node) {
      if (node.type.isError)
        problems.push(`syntax error at ${node.from}: "${text.slice(Math.max(0, node.from - 10), node.from + 10)}"`);
      else if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        metrics.add(text.slice(node.from, node.to));
    },
  });
  // A selector by `__name__` would hide its metric from this check: not allowed in shipped queries.
  if (/__name__/.test(text)) problems.push('selects by __name__');
  return { metrics: [...metrics], problems };
}

/** Sample names a Prometheus text exposition offers: every sample line's name, and each histogram family's `_bucket`/`_sum`/`_count`. */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const family = type[1] as string;
      const kind = type[2];
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(family + suffix);
      else if (kind === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(family + suffix);
      else names.add(family);
    } else if (line && !line.startsWith('#')) {
      names.add(line.split(/[{ ]/, 1)[0] as string);
    }
  }
  return names;
}
