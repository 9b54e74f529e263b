// The placeholders of bench/RESULTS.template.md: every figure of bench/RESULTS.md is one, naming the results
// file, the JSON path and the format, so each can be traced to what a benchmark wrote.
//
//   {{throughput.json#levels.16.gateway.median|,0}}     a value (path segments with spaces or dashes in [...])
//   {{startup.json#stats[minimal SDK server].p50|0}}
//   {{overhead.json#levels.1.overhead_gateway.p50 / overhead.json#levels.1.overhead_minimal.p50|2}}
//                                                          arithmetic over values: + - * / ( ) abs(...)
//   {{literal 80 MB}}                                      a number that is not a measured figure (a target, a setting)
//   {{results-table}}                                      where each quoted file came from (commit, date, machine, command)
//
// Formats: N (N decimals), ,N (thousands separated), +N (with its sign), short (a commit), date (YYYY-MM-DD),
// text, list, bool:WORD:WORD, sign:WORD:WORD (the first if the value is >= 0), atmost:LIMIT:WORD:WORD and
// atleast:LIMIT:WORD:WORD (the first if the value is within the limit). Without a format: whole numbers as
// they are, others with 2 decimals.
'use strict';

/** Thrown for a placeholder that cannot be rendered; the message says what is wrong with it. */
class PlaceholderError extends Error {}

// ---- expressions ------------------------------------------------------------------------------------------

const REF_START = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.json#/;

function tokenize(text) {
  const tokens = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const ref = REF_START.exec(rest);
    if (ref) {
      const file = ref[0].slice(0, -1);
      at += ref[0].length;
      const segments = [];
      for (;;) {
        if (text[at] === '[') {
          const close = text.indexOf(']', at);
          if (close === -1) throw new PlaceholderError(`unclosed [ in the path after ${file}#`);
          segments.push(text.slice(at + 1, close));
          at = close + 1;
        } else {
          const word = /^\w+/.exec(text.slice(at));
          if (!word) throw new PlaceholderError(`no path after ${file}#${segments.join('.')}`);
          segments.push(word[0]);
          at += word[0].length;
        }
        if (text[at] === '.' && /[\w[]/.test(text[at + 1] ?? '')) at += 1;
        else if (text[at] !== '[') break;
      }
      tokens.push({ kind: 'ref', file, path: segments });
      continue;
    }
    const number = /^\d+(?:\.\d+)?/.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]) });
      at += number[0].length;
      continue;
    }
    if (/^abs\(/.test(rest)) {
      tokens.push({ kind: 'abs' });
      at += 3;
      continue;
    }
    if ('+-*/()'.includes(rest[0])) {
      tokens.push({ kind: rest[0] });
      at += 1;
      continue;
    }
    throw new PlaceholderError(`unexpected ${JSON.stringify(rest.slice(0, 20))}`);
  }
  return tokens;
}

/** Parses an expression into a tree: refs, numbers, unary minus, abs, + - * /. */
function parse(text) {
  const tokens = tokenize(text);
  let next = 0;
  const peek = () => tokens[next]?.kind;
  const expect = (kind) => {
    if (peek() !== kind) throw new PlaceholderError(`expected ${kind} in ${JSON.stringify(text)}`);
    next += 1;
  };
  const factor = () => {
    const token = tokens[next++];
    if (!token) throw new PlaceholderError(`${JSON.stringify(text)} ends too early`);
    if (token.kind === '-') return { op: 'neg', a: factor() };
    if (token.kind === 'number' || token.kind === 'ref') return token;
    if (token.kind === 'abs') {
      expect('(');
      const inner = sum();
      expect(')');
      return { op: 'abs', a: inner };
    }
    if (token.kind === '(') {
      const inner = sum();
      expect(')');
      return inner;
    }
    throw new PlaceholderError(`unexpected ${token.kind} in ${JSON.stringify(text)}`);
  };
  const product = () => {
    let tree = factor();
    while (peek() === '*' || peek() === '/') tree = { op: tokens[next++].kind, a: tree, b: factor() };
    return tree;
  };
  const sum = () => {
    let tree = product();
    while (peek() === '+' || peek() === '-') tree = { op: tokens[next++].kind, a: tree, b: product() };
    return tree;
  };
  const tree = sum();
  if (next !== tokens.length) throw new PlaceholderError(`unexpected ${tokens[next].kind} in ${JSON.stringify(text)}`);
  return tree;
}

/** Every ref of a tree. */
function refsOf(tree) {
  if (!tree) return [];
  if (tree.kind === 'ref') return [tree];
  return [...refsOf(tree.a), ...refsOf(tree.b)];
}

/** The value at a ref, from `load(file)` (which throws a PlaceholderError for a missing or unreadable file). */
function lookUp(ref, load) {
  let value = load(ref.file);
  for (const [i, segment] of ref.path.entries()) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, segment)) {
      throw new PlaceholderError(`${ref.file} has no ${pathText(ref.path.slice(0, i + 1))}`);
    }
    value = value[segment];
  }
  return value;
}

function evaluate(tree, load) {
  if (tree.kind === 'number') return tree.value;
  if (tree.kind === 'ref') return lookUp(tree, load);
  const number = (node) => {
    const value = evaluate(node, load);
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new PlaceholderError(`${describe(node)} is ${JSON.stringify(value)}, not a number`);
    return value;
  };
  const a = number(tree.a);
  if (tree.op === 'neg') return -a;
  if (tree.op === 'abs') return Math.abs(a);
  const b = number(tree.b);
  const value = { '+': a + b, '-': a - b, '*': a * b, '/': a / b }[tree.op];
  if (!Number.isFinite(value)) throw new PlaceholderError(`${describe(tree)} is not a finite number`);
  return value;
}

/** A path as the template writes it: a.b[c d].e */
const pathText = (segments) =>
  segments.map((segment, i) => (/^\w+$/.test(segment) ? `${i ? '.' : ''}${segment}` : `[${segment}]`)).join('');

const describe = (tree) =>
  tree.kind === 'ref'
    ? `${tree.file}#${pathText(tree.path)}`
    : tree.kind === 'number'
      ? String(tree.value)
      : 'the expression';

// ---- formats ----------------------------------------------------------------------------------------------

function numeric(value) {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new PlaceholderError(`${JSON.stringify(value)} is not a number`);
  return value;
}

function fixed(value, decimals, grouped) {
  numeric(value);
  const text = grouped
    ? value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals })
    : value.toFixed(decimals);
  return /^-[0.,]+$/.test(text) ? text.slice(1) : text; // no "-0.00"
}

function format(value, spec) {
  if (spec === undefined || spec === '') {
    if (typeof value === 'number') return Number.isInteger(value) ? String(value) : fixed(value, 2);
    if (typeof value === 'string') return value;
    throw new PlaceholderError(`${JSON.stringify(value)} needs a format (text, list)`);
  }
  const [name, ...args] = spec.split(':');
  let match;
  if ((match = /^(,|\+)?(\d)$/.exec(name))) {
    const text = fixed(value, Number(match[2]), match[1] === ',');
    return match[1] === '+' && value > 0 && !/^[0.]+$/.test(text) ? `+${text}` : text;
  }
  const words = (count) => {
    if (args.length !== count) throw new PlaceholderError(`format ${name} takes ${count} arguments: ${spec}`);
  };
  switch (name) {
    case 'text':
      return String(value);
    case 'list':
      if (!Array.isArray(value)) throw new PlaceholderError(`${JSON.stringify(value)} is not a list`);
      return value.join(', ');
    case 'short':
      if (typeof value !== 'string') throw new PlaceholderError(`${JSON.stringify(value)} is not a commit`);
      return value.slice(0, 7);
    case 'date':
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
        throw new PlaceholderError(`${JSON.stringify(value)} is not a date`);
      return new Date(value).toISOString().slice(0, 10);
    case 'bool':
      words(2);
      if (typeof value !== 'boolean') throw new PlaceholderError(`${JSON.stringify(value)} is not true or false`);
      return value ? args[0] : args[1];
    case 'sign':
      words(2);
      return numeric(value) >= 0 ? args[0] : args[1];
    case 'atmost':
    case 'atleast': {
      words(3);
      const limit = Number(args[0]);
      if (!Number.isFinite(limit)) throw new PlaceholderError(`${name} needs a number as its limit: ${spec}`);
      return (name === 'atmost' ? numeric(value) <= limit : numeric(value) >= limit) ? args[1] : args[2];
    }
    default:
      throw new PlaceholderError(`unknown format ${JSON.stringify(spec)}`);
  }
}

// ---- the template -----------------------------------------------------------------------------------------

/** Comments (for the template's authors) and placeholders, in the order they appear. */
const COMMENT_OR_PLACEHOLDER = /<!--[\s\S]*?-->\n?|\{\{([\s\S]*?)\}\}/g;

/** The placeholders of a template (not those inside comments), each with its line number. */
function placeholders(template) {
  const found = [];
  for (const match of template.matchAll(COMMENT_OR_PLACEHOLDER)) {
    if (match[0].startsWith('<!--')) continue;
    found.push({
      line: template.slice(0, match.index).split('\n').length,
      source: match[0],
      body: match[1].trim(),
      index: match.index,
    });
  }
  return found;
}

/**
 * What a placeholder body is: `literal`, `results-table`, or an expression with a format. Throws a
 * PlaceholderError for one that does not parse.
 */
function classify(body) {
  if (/^literal(\s|$)/.test(body)) return { kind: 'literal', text: body.slice('literal'.length).trim() };
  if (body === 'results-table') return { kind: 'results-table' };
  const bar = body.indexOf('|');
  const expression = bar === -1 ? body : body.slice(0, bar);
  const tree = parse(expression);
  return {
    kind: 'value',
    expression: expression.trim(),
    tree,
    format: bar === -1 ? undefined : body.slice(bar + 1).trim(),
  };
}

/** The results files a template quotes, in order of first mention. */
function filesQuoted(template) {
  const files = [];
  for (const placeholder of placeholders(template)) {
    let shape;
    try {
      shape = classify(placeholder.body);
    } catch {
      continue;
    }
    if (shape.kind === 'value')
      for (const ref of refsOf(shape.tree)) if (!files.includes(ref.file)) files.push(ref.file);
  }
  return files;
}

/**
 * Renders a template, its comments left out: `load(file)` gives a results file's JSON, `resultsTable(files)`
 * the table of where they came from. Returns the text and the problems (a placeholder that cannot be
 * rendered shows as "[missing: ...]" and is one problem, with its line in the template).
 */
function render(template, { load, resultsTable }) {
  const files = filesQuoted(template);
  const problems = [];
  let out = '';
  let at = 0;
  for (const match of template.matchAll(COMMENT_OR_PLACEHOLDER)) {
    out += template.slice(at, match.index);
    at = match.index + match[0].length;
    if (match[0].startsWith('<!--')) continue;
    const body = match[1].trim();
    try {
      const shape = classify(body);
      if (shape.kind === 'literal') out += shape.text;
      else if (shape.kind === 'results-table') out += resultsTable(files);
      else out += format(evaluate(shape.tree, load), shape.format);
    } catch (error) {
      if (!(error instanceof PlaceholderError)) throw error;
      problems.push({
        line: template.slice(0, match.index).split('\n').length,
        placeholder: match[0],
        problem: error.message,
      });
      out += `[missing: ${body.replace(/\|.*$/, '').trim()}]`;
    }
  }
  out += template.slice(at);
  return { text: out, problems, files };
}

// A figure: a number with a decimal point, or a number followed by a unit of time, size, rate or ratio.
const FIGURES = [
  /(?<![\w.])\d[\d,]*(?:\.\d+)?\s*(?:ms|µs|s|seconds?|minutes?|MB|MiB|KiB|kB|GB|x|×|%|per second|a second|\/s)(?!\w)/g,
  /\d[\d,]*\.\d+/g,
];

/**
 * Figures written into the template's prose instead of a placeholder: outside fenced code, inline code,
 * headings and comments. Each is { line, figure, text }.
 */
function literalFigures(template) {
  // Comments blanked with their line breaks kept, so line numbers stay the template's.
  const lines = template.replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, '')).split('\n');
  const found = [];
  let fence;
  for (const [i, line] of lines.entries()) {
    const opener = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) fence = undefined;
      continue;
    }
    if (opener) {
      fence = opener[1];
      continue;
    }
    if (/^\s{0,3}#{1,6}\s/.test(line)) continue;
    const prose = line.replace(/\{\{[\s\S]*?\}\}/g, ' ').replace(/`[^`]*`/g, ' '); // placeholders and inline code
    const taken = [];
    for (const pattern of FIGURES) {
      for (const match of prose.matchAll(pattern)) {
        const end = match.index + match[0].length;
        if (taken.some(([from, to]) => match.index < to && from < end)) continue;
        taken.push([match.index, end]);
        found.push({ line: i + 1, figure: match[0].trim(), text: line.trim() });
      }
    }
  }
  return found;
}

module.exports = {
  PlaceholderError,
  parse,
  refsOf,
  evaluate,
  format,
  classify,
  placeholders,
  filesQuoted,
  render,
  literalFigures,
};
