// The floor: a minimal MCP stdio server with the SDK alone, one tool that forwards to a System One engine
// (when ENGINE_URL is set) or answers at once. Nothing else loaded: no Nest, no validation, no config.
'use strict';
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'minimal', version: '0' });
server.registerTool('decide', { inputSchema: { question: z.string(), options: z.array(z.string()).optional() } }, async ({ question, options }) => {
  let answer = { decision: (options ?? ['yes'])[0] };
  if (process.env.ENGINE_URL) {
    const criteria = options ?? ['yes', 'no'];
    const response = await fetch(`${process.env.ENGINE_URL}/v1/systemone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'typed-decisions', state: {}, questions: { decision: { type: 'choice', instructions: question, criteria } } }),
    });
    answer = await response.json();
  }
  return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
});
server.connect(new StdioServerTransport());
