import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

interface FolderEdge {
  from: string;
  to: string;
  example: string;
}
interface FolderCycle {
  folders: string[];
  edges: FolderEdge[];
  loop: string[];
}
const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'folder-graph.js');
const { folderCycles, folderGraph, fileCycles, fileGraph } = require('../../scripts/folder-graph') as {
  folderCycles(srcDir: string): FolderCycle[];
  folderGraph(srcDir: string): { folders: string[]; edges: FolderEdge[] };
  fileCycles(srcDir: string): FolderCycle[];
  fileGraph(srcDir: string): { folders: string[]; edges: FolderEdge[] };
};

/** A folder may import the folders below it, never one that imports it back (docs/architecture.md). */
describe('folders under src/', () => {
  it('import each other in one direction only', () => {
    const src = path.join(__dirname, '..', '..', 'src');
    const graph = folderGraph(src);
    // A walk that found nothing would find no cycle either: hold it to the size of the real graph.
    expect(graph.folders.length).toBeGreaterThanOrEqual(8);
    expect(graph.edges.length).toBeGreaterThanOrEqual(20);
    expect(graph.edges).toContainEqual(expect.objectContaining({ from: 'mcp', to: 'decisions' }));
    expect(folderCycles(src)).toEqual([]);
  });

  describe('in a tree where two folders import each other', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'folder-cycles-'));
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      };
      write('src/alpha/one.ts', "import { two } from '../beta/two';\nexport const one = () => two;\n");
      write('src/beta/two.ts', "export const two = 2;\nexport const again = () => require('../alpha/one');\n");
      write('src/gamma/three.ts', "import { one } from '../alpha/one';\nexport const three = one;\n");
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports the cycle naming both folders, and the command exits 1', () => {
      const cycles = folderCycles(path.join(dir, 'src'));
      expect(cycles).toHaveLength(1);
      expect(cycles[0].folders).toEqual(['alpha', 'beta']);
      expect(cycles[0].edges).toEqual([
        { from: 'alpha', to: 'beta', example: 'alpha/one.ts -> beta/two.ts' },
        { from: 'beta', to: 'alpha', example: 'beta/two.ts -> alpha/one.ts' },
      ]);

      const run = spawnSync(process.execPath, [SCRIPT, path.join(dir, 'src')], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain('alpha <-> beta');
      expect(run.stdout).toContain('alpha -> beta: alpha/one.ts -> beta/two.ts');
    });
  });

  it('hold no two files that import each other, however far round', () => {
    const src = path.join(__dirname, '..', '..', 'src');
    const graph = fileGraph(src);
    expect(graph.folders.length).toBeGreaterThanOrEqual(200);
    expect(graph.edges).toContainEqual(
      expect.objectContaining({ from: 'mcp/decide/decide.service.ts', to: 'decisions/pipeline/decision.service.ts' }),
    );
    expect(fileCycles(src)).toEqual([]);
  });

  describe('in a tree where three files of one folder import each other round', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'file-circles-'));
      mkdirSync(path.join(dir, 'src', 'alpha'), { recursive: true });
      writeFileSync(
        path.join(dir, 'src', 'alpha', 'one.ts'),
        "import { two } from './two';\nexport const one = two;\n",
      );
      writeFileSync(
        path.join(dir, 'src', 'alpha', 'two.ts'),
        "import { three } from './three';\nexport const two = three;\n",
      );
      writeFileSync(
        path.join(dir, 'src', 'alpha', 'three.ts'),
        "import type { one } from './one';\nexport const three = 3;\n",
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports the circle, though no folder cycle, and the command exits 1', () => {
      expect(folderCycles(path.join(dir, 'src'))).toEqual([]);
      const circles = fileCycles(path.join(dir, 'src'));
      expect(circles.map((circle) => circle.folders)).toEqual([['alpha/one.ts', 'alpha/three.ts', 'alpha/two.ts']]);
      const run = spawnSync(process.execPath, [SCRIPT, path.join(dir, 'src')], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(
        'Files that import each other: alpha/one.ts -> alpha/two.ts -> alpha/three.ts -> alpha/one.ts',
      );
    });
  });
});
