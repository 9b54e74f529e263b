/** What the plugin says about the server's tools, in its manifest and in the marketplace, matches the tools. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TOOL_NAMES } from '../../src/mcp/tool-list';

const ROOT = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'plugin', '.claude-plugin', 'plugin.json'), 'utf8')) as {
  description: string;
  version: string;
};
const marketplace = JSON.parse(readFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8')) as {
  plugins: { source: string; version: string }[];
};
const COUNTS = ['one', 'two', 'three', 'four', 'five', 'six'];

it('the manifest names every tool, and counts them right', () => {
  expect(TOOL_NAMES.filter((name) => !manifest.description.includes(name))).toEqual([]);
  expect(manifest.description).toContain(`${COUNTS[TOOL_NAMES.length - 1]} tools`);
});

it("the marketplace's entry is the plugin folder, at the manifest's version and the package's", () => {
  const packageVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  expect(marketplace.plugins).toEqual([expect.objectContaining({ source: './plugin', version: manifest.version })]);
  expect(manifest.version).toBe(packageVersion);
});
