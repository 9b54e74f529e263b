// The floor on the SDK the gateway now uses (2.x, zod 4): a minimal MCP server with the SDK alone, one tool
// that forwards to a System One engine with node:http and a kept-alive socket (when ENGINE_URL is set) or
// answers at once. Over stdio with the SDK's `serveStdio` (both eras), or with MINIMAL_HTTP_PORT set, over
// HTTP with the SDK's `createMcpHandler` mounted on node:http (both eras, stateless): nothing else loaded,
// no Nest, no validation beyond the SDK's own, no config.
'use strict';
const http = require('node:http');
const { McpServer } = require('@modelcontextprotocol/server');
const { z } = require('zod');

const agent = new http.Agent({ keepAlive: true });
function postKeptAlive(url, body) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const inputSchema = z.object({ question: z.string(), options: z.array(z.string()).optional() });
async function decide({ question, options }) {
  let answer = { decision: (options ?? ['yes'])[0] };
  if (process.env.ENGINE_URL) {
    // Candidates as the protocol takes them: a mapping of each to its description (here itself).
    const criteria = Object.fromEntries((options ?? ['yes', 'no']).map((option) => [option, option]));
    const body = JSON.stringify({
      model: 'typed-decisions',
      state: {},
      questions: { decision: { type: 'choice', instructions: question, criteria } },
    });
    answer = await postKeptAlive(`${process.env.ENGINE_URL}/v1/systemone`, body);
  }
  return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
}

function createServer() {
  const server = new McpServer({ name: 'minimal-2x', version: '0' }, { capabilities: { tools: {} } });
  server.registerTool('decide', { inputSchema }, decide);
  return server;
}

if (process.env.MINIMAL_HTTP_PORT !== undefined) {
  const { createMcpHandler } = require('@modelcontextprotocol/server');
  const { toNodeHandler } = require('@modelcontextprotocol/node');
  const handler = toNodeHandler(createMcpHandler(createServer));
  const server = http.createServer(handler);
  server.listen(Number(process.env.MINIMAL_HTTP_PORT), '127.0.0.1', () =>
    process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`),
  );
} else {
  require('@modelcontextprotocol/server/stdio').serveStdio(createServer);
}
