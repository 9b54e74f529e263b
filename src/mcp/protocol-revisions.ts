import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The MCP revisions with the per-request `_meta` envelope (no handshake, no session) that the SDK's serving
 * entries answer: `server/discover` offers these, and a request claiming any other is refused (-32022).
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** Every revision this server answers, newest first: the modern ones, then the 2025 era's `initialize` ones. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];
