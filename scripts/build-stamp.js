'use strict';
// Whether dist/ was built from exactly the sources in the tree, by this Node.js: the build writes a digest of
// its inputs to dist/.build-stamp when it finishes, and the build (which the prepare step runs) compares
// against it. Content, not mtimes: a checkout or a copy changes mtimes without changing what would be built.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** What the build reads besides src/: its configs, its own scripts, and the pinned dependencies it bundles. */
const INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.js',
  'scripts/bundle-lean.js',
  'scripts/build-stamp.js',
];
const STAMP = path.join('dist', '.build-stamp');

function filesUnder(root, dir) {
  const files = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(root, relative));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

/**
 * A digest of everything the build turns into dist/. Node's version is in it because the build writes V8 code
 * caches, which another Node.js rejects (the gateway then starts slower).
 */
function sourcesDigest(root) {
  const hash = crypto.createHash('sha256').update(`node ${process.version} ${process.platform} ${process.arch}\n`);
  const files = filesUnder(root, 'src')
    .concat(INPUTS.filter((file) => fs.existsSync(path.join(root, file))))
    .sort();
  for (const file of files) {
    const content = crypto
      .createHash('sha256')
      .update(fs.readFileSync(path.join(root, file)))
      .digest('hex');
    hash.update(`${file}\0${content}\n`);
  }
  return hash.digest('hex');
}

/** True when dist/ holds a finished build of the current sources. */
function isBuildCurrent(root) {
  try {
    return (
      fs.readFileSync(path.join(root, STAMP), 'utf8').trim() === sourcesDigest(root) &&
      fs.existsSync(path.join(root, 'dist', 'main.js'))
    );
  } catch (error) {
    return false;
  }
}

/**
 * Written last by the build, so an interrupted build leaves no stamp and the next one starts over; `digest` is
 * taken before the build starts, so a source edited while it ran makes the stamp stale, not the build.
 */
function writeBuildStamp(root, digest) {
  fs.writeFileSync(path.join(root, STAMP), `${digest}\n`);
}

module.exports = { sourcesDigest, isBuildCurrent, writeBuildStamp, STAMP };
