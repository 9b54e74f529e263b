/**
 * No function, method or constructor in src/ takes more than six parameters: past that a call site cannot be
 * read without the signature beside it, and the arguments want one object with named fields (the replica
 * runner's PoolTurn, the config loader's section and sources). Read with TypeScript's own parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const MOST_PARAMETERS = 6;
const SRC = path.join(__dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every function-like declaration of `text` with its parameter count, as `file:line name`. */
function signatures(file: string, text: string): { where: string; parameters: number }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: { where: string; parameters: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const name = node.name?.getText(source) ?? ts.SyntaxKind[node.kind];
      found.push({ where: `${path.relative(SRC, file)}:${line} ${name}`, parameters: node.parameters.length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it(`has no function or constructor in src/ with more than ${MOST_PARAMETERS} parameters`, () => {
  const all = sourceFiles(SRC).flatMap((file) => signatures(file, readFileSync(file, 'utf8')));
  // A walk that found nothing would find no long list either: hold it to the size of the real tree.
  expect(all.length).toBeGreaterThan(2000);
  expect(all.filter(({ parameters }) => parameters >= MOST_PARAMETERS).length).toBeGreaterThan(0);
  expect(all.filter(({ parameters }) => parameters > MOST_PARAMETERS).map(({ where }) => where)).toEqual([]);
});

it('finds a constructor with seven parameters in a file written so', () => {
  const text = 'class A { constructor(a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7) {} }\nconst f = (x: 1) => x;\n';
  expect(signatures(path.join(SRC, 'example.ts'), text)).toEqual([
    { where: 'example.ts:1 Constructor', parameters: 7 },
    { where: 'example.ts:2 ArrowFunction', parameters: 1 },
  ]);
});
