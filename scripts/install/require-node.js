'use strict';
// Stops with a clear message on a Node.js older than the gateway needs. The scripts load it first, and they
// and this file keep to syntax an old Node.js parses, so that it gets this far instead of to a syntax error.
var MINIMUM = 20;
var major = Number(process.versions.node.split('.')[0]);
if (major < MINIMUM) {
  console.error('Node.js ' + MINIMUM + ' or later is needed; this is ' + process.version + ' (https://nodejs.org)');
  process.exit(1);
}
