'use strict';
// Stops with a clear message on a Node.js older than the gateway needs. Written in the oldest JavaScript so
// that an old Node.js gets this far, and loaded before anything else the scripts do.
var MINIMUM = 20;
var major = Number(process.versions.node.split('.')[0]);
if (major < MINIMUM) {
  console.error('Node.js ' + MINIMUM + ' or later is needed; this is ' + process.version + ' (https://nodejs.org)');
  process.exit(1);
}
