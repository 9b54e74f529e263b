import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** Headers about one connection, never carried to the next hop (RFC 9110 §7.6.1, and RFC 7230's older list). */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** The hop-by-hop names of one message: the fixed ones and any its `Connection` header names. */
function hopByHopNames(headers: IncomingHttpHeaders): Set<string> {
  const names = new Set(HOP_BY_HOP);
  const connection = [headers.connection, headers['proxy-connection']]
    .flat()
    .filter((value): value is string => typeof value === 'string');
  for (const value of connection) {
    for (const name of value.split(',')) if (name.trim() !== '') names.add(name.trim().toLowerCase());
  }
  return names;
}

/** A message's headers for the next hop: without hop-by-hop ones, nor `alsoDropped`, and with this hop in Via. */
export function nextHopHeaders(
  headers: IncomingHttpHeaders,
  hop: Hop,
  alsoDropped: ReadonlySet<string> = new Set(),
): OutgoingHttpHeaders {
  const dropped = hopByHopNames(headers);
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !dropped.has(name) && !alsoDropped.has(name)) kept[name] = value;
  }
  kept.via = hop.appendedTo(headers.via);
  return kept;
}

/**
 * This router as one hop of a message (RFC 9110 §7.6.3): a pseudonym made when it starts, so a request that
 * comes back to the same router (an upstream that leads back to it, directly or through another router) is
 * recognised, while a chain of different routers still works.
 */
export class Hop {
  readonly name = `system1-router-${randomBytes(4).toString('hex')}`;

  /** The Via value for the next hop: what came in, then `1.1 <name>`. */
  appendedTo(via: string | string[] | undefined): string {
    const entry = `1.1 ${this.name}`;
    const earlier = [via].flat().filter((value): value is string => typeof value === 'string' && value.trim() !== '');
    return [...earlier, entry].join(', ');
  }

  /** Whether this router already passed the message on: its name is a Via entry's received-by. */
  seenIn(via: string | string[] | undefined): boolean {
    return [via]
      .flat()
      .filter((value): value is string => typeof value === 'string')
      .flatMap((value) => value.split(','))
      .some((entry) => entry.trim().split(/\s+/)[1] === this.name);
  }
}
