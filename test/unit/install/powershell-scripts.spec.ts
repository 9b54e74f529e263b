/**
 * The Windows scripts, checked without PowerShell (this machine and CI have none): each parses with the
 * tree-sitter PowerShell grammar, stays ASCII (PowerShell 5.1 reads a file without a BOM in the ANSI code
 * page), declares its parameters where PowerShell reads them, calls only cmdlets that 5.1 and 7 both ship,
 * and hands over to a Node script that exists. What the scripts then do is the Node scripts' job, which the
 * e2e suites run with the exact arguments the .ps1 files pass.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Language, type Node as SyntaxNode, Parser } from 'web-tree-sitter';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SKIPPED = new Set(['node_modules', 'dist', 'dist-fakes', '.git']);
/** Core cmdlets present in Windows PowerShell 5.1 and PowerShell 7 alike. */
const PORTABLE_CMDLETS = new Set([
  'Get-Command',
  'Select-Object',
  'Join-Path',
  'Test-Path',
  'Write-Host',
  'Write-Output',
]);

let parser: Parser;

function scriptsIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return scriptsIn(full);
    return entry.name.endsWith('.ps1') ? [path.relative(ROOT, full)] : [];
  });
}

function nodesOfType(node: SyntaxNode, type: string): SyntaxNode[] {
  const own = node.type === type ? [node] : [];
  return [...own, ...node.children.flatMap((child) => (child ? nodesOfType(child, type) : []))];
}

function parse(source: string): SyntaxNode {
  return parser.parse(source)!.rootNode;
}

const scripts = scriptsIn(ROOT);

beforeAll(async () => {
  await Parser.init();
  parser = new Parser();
  // bytes, not a path: loading from a path takes a dynamic import, which jest's CommonJS runtime refuses
  parser.setLanguage(
    await Language.load(readFileSync(require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm'))),
  );
});

it('finds the Windows scripts the install docs name: the installers and each engine launcher', () => {
  expect(scripts.sort()).toEqual([
    path.join('engines', 'laya', 'start.ps1'),
    path.join('engines', 'reranker', 'start.ps1'),
    'install.ps1',
    'uninstall.ps1',
  ]);
});

it('catches a broken script (so the checks below can fail)', () => {
  const source = readFileSync(path.join(ROOT, 'uninstall.ps1'), 'utf8');
  expect(parse(source).hasError).toBe(false);
  expect(
    parse(source.replace("if ($Purge) { $arguments += '--purge' }", "if ($Purge) { $arguments += '--purge'")).hasError,
  ).toBe(true);
});

describe.each(scripts)('%s', (script) => {
  const source = readFileSync(path.join(ROOT, script), 'utf8');

  it('parses as PowerShell and is plain ASCII', () => {
    expect(parse(source).hasError).toBe(false);
    expect([...source].filter((char) => char.charCodeAt(0) > 127)).toEqual([]);
  });

  it('declares its parameters first, where PowerShell reads them', () => {
    const root = parse(source);
    const declaresParameters = /^param\s*\(/m.test(source);
    expect(root.children.some((child) => child?.type === 'param_block')).toBe(declaresParameters);
  });

  it('calls only cmdlets that Windows PowerShell 5.1 and PowerShell 7 both have', () => {
    const cmdlets = nodesOfType(parse(source), 'command_name').map((node) => node.text);
    expect(cmdlets.filter((name) => !PORTABLE_CMDLETS.has(name))).toEqual([]);
  });

  it('hands over to a Node script that exists beside it, and passes on its exit code', () => {
    const targets = [...source.matchAll(/Join-Path \$PSScriptRoot '([^']+\.js)'/g)].map((match) =>
      match[1].replace(/\\/g, '/'),
    );
    expect(targets).toHaveLength(1);
    expect(() => readFileSync(path.join(ROOT, path.dirname(script), targets[0]))).not.toThrow();
    expect(source.trimEnd().endsWith('exit $LASTEXITCODE')).toBe(true);
  });
});
