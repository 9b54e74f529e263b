#!/usr/bin/env node
'use strict';
/**
 * The import graph between the top-level folders of src/, and its cycles; and the files that import each other.
 *
 * A folder may import the folders below it, never one that imports it back: a cycle means neither folder can
 * be understood, tested or bundled without the other. This walks src/, reads the relative imports of every
 * source file (`import ... from`, `export ... from`, `import '...'`, `require('...')`, `import('...')`),
 * keeps those that cross from one top-level folder to another (a file directly in src/ is in "(root)"),
 * and finds the strongly connected components of that graph (Tarjan). Each component of two or more folders
 * is a cycle.
 *
 * Usage: node scripts/folder-graph.js [SRC_DIR] [--edges]
 *   Prints each cycle with one example import per edge and exits 1 when there is one; prints nothing and
 *   exits 0 when there is none. --edges also prints every folder edge with its example. SRC_DIR defaults
 *   to the repository's src/.
 *
 * Plain CommonJS with no dependencies, so CI and the jest suite (test/unit/folder-cycles.spec.ts) can run it.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT_FOLDER = '(root)';
const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
const TARGET_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.mjs', '.cjs', '.json'];

/**
 * Import forms. A static `import`/`export` must start a line (so prose in a JSDoc block, whose lines start
 * with `*`, is not read), and its clause holds no quote, `;`, `(`, `)` or `=` (so it cannot run on into
 * the next statement). `require(...)` and `import(...)` may sit anywhere on a line.
 */
const STATIC = /^[ \t]*(?:import|export)\b[^'";()=]*?\bfrom\s*['"]([^'"\n]+)['"]|^[ \t]*import\s*['"]([^'"\n]+)['"]/gm;
const CALL = /\b(?:require|import)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
/** A line that is a comment up to the match: `//`, `/*` or a JSDoc `*` line. */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*)/;

function sourceFiles(dir) {
  const files = [];
  (function walk(current) {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(full);
      } else if (entry.isFile() && SOURCE.test(entry.name)) {
        files.push(full);
      }
    }
  })(dir);
  return files.sort();
}

/** The relative specifiers a file imports. */
function relativeSpecifiers(text) {
  const specs = [];
  for (const match of text.matchAll(STATIC)) specs.push(match[1] ?? match[2]);
  for (const match of text.matchAll(CALL)) {
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    if (!COMMENT_LINE.test(text.slice(lineStart, match.index))) specs.push(match[1]);
  }
  return specs.filter((spec) => spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..');
}

/** The file a relative specifier names, when it is a file inside `root`; null otherwise (a package, a missing file). */
function resolveSpecifier(root, from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [
    base,
    ...TARGET_EXTENSIONS.map((ext) => base + ext),
    ...TARGET_EXTENSIONS.map((ext) => path.join(base, `index${ext}`)),
  ];
  // TypeScript under nodenext writes `./x.js` for `./x.ts`.
  const js = /\.(m|c)?js$/.exec(base);
  if (js) candidates.push(base.slice(0, -js[0].length) + `.${js[1] ?? ''}ts`);
  for (const candidate of candidates) {
    const inside = path.relative(root, candidate);
    if (inside.startsWith('..') || path.isAbsolute(inside)) continue;
    try {
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

function folderOf(root, file) {
  const parts = path.relative(root, file).split(path.sep);
  return parts.length > 1 ? parts[0] : ROOT_FOLDER;
}

/**
 * The folder graph of `srcDir`: every top-level folder (and "(root)") that holds a source file, and every
 * edge between two of them, each with the first import found that makes it (`file -> file`, relative to
 * `srcDir`, in `/` form).
 *
 * @param {string} srcDir
 * @returns {{ folders: string[], edges: { from: string, to: string, example: string }[] }}
 */
function folderGraph(srcDir) {
  return importGraph(srcDir, folderOf);
}

/**
 * The same walk with one node per file: a file-level circle (two files that import each other, however far
 * round) means neither module can be loaded, read or tested alone. `folders` holds the files' paths.
 *
 * @param {string} srcDir
 */
function fileGraph(srcDir) {
  return importGraph(srcDir, (root, file) => path.relative(root, file).split(path.sep).join('/'));
}

/** Every node `nodeOf` makes of the source files under `srcDir`, and every edge between two of them. */
function importGraph(srcDir, nodeOf) {
  const root = path.resolve(srcDir);
  if (!fs.statSync(root).isDirectory()) throw new Error(`${srcDir} is not a directory`);
  const shown = (file) => path.relative(root, file).split(path.sep).join('/');
  const folders = new Set();
  const edges = new Map();
  for (const file of sourceFiles(root)) {
    const from = nodeOf(root, file);
    folders.add(from);
    for (const spec of relativeSpecifiers(fs.readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(root, file, spec);
      if (!target) continue;
      const to = nodeOf(root, target);
      const key = `${from}\0${to}`;
      if (from !== to && !edges.has(key)) edges.set(key, { from, to, example: `${shown(file)} -> ${shown(target)}` });
    }
  }
  const byName = (a, b) => (a.from === b.from ? a.to.localeCompare(b.to) : a.from.localeCompare(b.from));
  return { folders: [...folders].sort(), edges: [...edges.values()].sort(byName) };
}

/** Tarjan's strongly connected components of more than one folder, each sorted by name. */
function components(folders, edges) {
  const next = new Map(folders.map((folder) => [folder, []]));
  for (const { from, to } of edges) next.get(from).push(to);
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const folder of folders) if (!index.has(folder)) visit(folder);
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The shortest way round from `start` back to itself inside `members` (breadth first), as folder names. */
function shortestLoop(start, members, edges) {
  const inside = new Set(members);
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const { from, to } of edges) {
      if (from !== v || !inside.has(to)) continue;
      if (to === start) {
        const loop = [start];
        for (let at = v; at !== start; at = previous.get(at)) loop.splice(1, 0, at);
        return [...loop, start];
      }
      if (!previous.has(to)) {
        previous.set(to, v);
        queue.push(to);
      }
    }
  }
  return [start];
}

/**
 * The folder cycles of `srcDir`: for each group of folders that import one another, its folders, every
 * edge between them with an example import, and one shortest loop through the first folder (for reading).
 * Empty when the folders form a DAG.
 *
 * @param {string} srcDir
 * @returns {{ folders: string[], edges: { from: string, to: string, example: string }[], loop: string[] }[]}
 */
function folderCycles(srcDir) {
  return cyclesOf(folderGraph(srcDir));
}

/** The file-level circles of `srcDir`, in the same shape (`folders` naming files). */
function fileCycles(srcDir) {
  return cyclesOf(fileGraph(srcDir));
}

/** The cycles of a graph made by {@link folderGraph}. */
function cyclesOf(graph) {
  return components(graph.folders, graph.edges).map((folders) => {
    const members = new Set(folders);
    const edges = graph.edges.filter(({ from, to }) => members.has(from) && members.has(to));
    return { folders, edges, loop: shortestLoop(folders[0], folders, edges) };
  });
}

function main(argv) {
  const showEdges = argv.includes('--edges');
  const srcDir = argv.find((arg) => !arg.startsWith('--')) ?? path.join(__dirname, '..', 'src');
  const graph = folderGraph(srcDir);
  if (showEdges) {
    console.log(`${graph.folders.length} folders, ${graph.edges.length} edges under ${srcDir}:`);
    for (const { from, to, example } of graph.edges) console.log(`  ${from} -> ${to}: ${example}`);
  }
  const circles = fileCycles(srcDir);
  for (const circle of circles) console.log(`Files that import each other: ${circle.loop.join(' -> ')}`);
  const cycles = cyclesOf(graph);
  if (cycles.length === 0) return circles.length === 0 ? 0 : 1;
  console.log(
    `Folders under ${srcDir} that import each other (${cycles.length} cycle group(s)); a folder should only import folders below it:`,
  );
  for (const cycle of cycles) {
    console.log(`- ${cycle.folders.join(' <-> ')} (for example ${cycle.loop.join(' -> ')})`);
    for (const { from, to, example } of cycle.edges) console.log(`    ${from} -> ${to}: ${example}`);
  }
  return 1;
}

module.exports = { folderGraph, folderCycles, fileGraph, fileCycles, cyclesOf };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
