// The floor: a minimal MCP stdio server with the SDK alone, one tool that forwards to a System One engine
// (when ENGINE_URL is set) or answers at once. Nothing else loaded: no Nest, no validation, no config.
// MINIMAL_CLIENT=http forwards with node:http and a kept-alive socket (the fastest client measured here)
// instead of fetch.
'use strict';
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'minimal', version: '0' });
server.registerTool(
  'decide',
  { inputSchema: { question: z.string(), options: z.array(z.string()).optional() } },
  async ({ question, options }) => {
    let answer = { decision: (options ?? ['yes'])[0] };
    if (process.env.ENGINE_URL) {
      // Candidates as the protocol takes them: a mapping of each to its description (here itself).
      const criteria = Object.fromEntries((options ?? ['yes', 'no']).map((option) => [option, option]));
      const body = JSON.stringify({
        model: 'typed-decisions',
        state: {},
        questions: { decision: { type: 'choice', instructions: question, criteria } },
      });
      answer =
        process.env.MINIMAL_CLIENT === 'http'
          ? await postKeptAlive(`${process.env.ENGINE_URL}/v1/systemone`, body)
          : await postFetch(`${process.env.ENGINE_URL}/v1/systemone`, body);
    }
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  },
);
server.connect(new StdioServerTransport());

async function postFetch(url, body) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return response.json();
}

const agent = new (require('node:http').Agent)({ keepAlive: true });
function postKeptAlive(url, body) {
  return new Promise((resolve, reject) => {
    const request = require('node:http').request(
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
