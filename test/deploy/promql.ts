/**
 * Finds the metric names a PromQL expression reads: enough of a lexer to tell a metric from a
 * function, an aggregation, a keyword, a label name or a Grafana variable, not a full parser.
 */

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
  'start',
  'end',
]);

/** Keywords whose parenthesized list holds label names, not expressions. */
const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const IDENTIFIER_START = /[A-Za-z_:]/;
const IDENTIFIER_PART = /[A-Za-z0-9_:]/;

/** Index just past the string literal that opens at `start`. */
function skipString(expr: string, start: number): number {
  const quote = expr[start];
  let index = start + 1;
  while (index < expr.length && expr[index] !== quote) {
    index += expr[index] === '\\' && quote !== '`' ? 2 : 1;
  }
  return index + 1;
}

/** Index just past the bracket group that opens at `start`, skipping string literals inside it. */
function skipGroup(expr: string, start: number, open: string, close: string): number {
  let depth = 0;
  let index = start;
  while (index < expr.length) {
    const char = expr[index];
    if (char === '"' || char === "'" || char === '`') {
      index = skipString(expr, index);
      continue;
    }
    if (char === open) depth += 1;
    if (char === close) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
    index += 1;
  }
  throw new Error(`unbalanced ${open}${close} in: ${expr}`);
}

function nextNonSpace(expr: string, start: number): number {
  let index = start;
  while (index < expr.length && /\s/.test(expr[index] ?? '')) index += 1;
  return index;
}

/** Metric names read by `expr`, in order of first appearance, without duplicates. */
export function metricNames(expr: string): string[] {
  const names: string[] = [];
  let index = 0;
  while (index < expr.length) {
    const char = expr[index] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      index = skipString(expr, index);
    } else if (char === '{') {
      index = skipGroup(expr, index, '{', '}');
    } else if (char === '[') {
      index = skipGroup(expr, index, '[', ']');
    } else if (char === '#') {
      const newline = expr.indexOf('\n', index);
      index = newline === -1 ? expr.length : newline;
    } else if (char === '$' || /[0-9.]/.test(char)) {
      // A Grafana variable, or a number or duration such as 0.99, 1e3 or 5m.
      index += 1;
      while (index < expr.length && /[A-Za-z0-9_.]/.test(expr[index] ?? '')) index += 1;
    } else if (IDENTIFIER_START.test(char)) {
      const start = index;
      while (index < expr.length && IDENTIFIER_PART.test(expr[index] ?? '')) index += 1;
      const word = expr.slice(start, index);
      const after = nextNonSpace(expr, index);
      // An aggregation may put its grouping first: `sum by (job) (...)`.
      const isCall = expr[after] === '(' || /^(by|without)\s*\(/i.test(expr.slice(after));
      if (LABEL_LIST_KEYWORDS.has(word.toLowerCase())) {
        if (expr[after] === '(') index = skipGroup(expr, after, '(', ')');
      } else if (!KEYWORDS.has(word.toLowerCase()) && !isCall && !names.includes(word)) {
        names.push(word);
      }
    } else {
      index += 1;
    }
  }
  return names;
}

const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

/** Names in `used` that are not in `known`, reading a histogram's series under its base name. */
export function unknownMetricNames(used: Iterable<string>, known: ReadonlySet<string>): string[] {
  return [...used].filter((name) => !known.has(name) && !known.has(name.replace(HISTOGRAM_SUFFIX, '')));
}
