/**
 * The one name that means this machine without being an address. Only this exact spelling (any case): a
 * trailing dot (`localhost.`, which the URL parser also makes of `localhost%2e`) asks DNS for a fully
 * qualified name, which another machine may answer, so it is treated like any other name.
 */
export const LOOPBACK_NAME = 'localhost';

/** What `localhost` resolves to here, never by DNS: IPv4 first, as /etc/hosts usually lists it. */
export const LOCALHOST_ADDRESSES = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
] as const;

/** Whether `hostname` is the name `localhost`, which this machine resolves itself (never asking DNS). */
export function isLocalhostName(hostname: string): boolean {
  return hostname.toLowerCase() === LOOPBACK_NAME;
}

/**
 * The literal address to bind or connect to for a loopback host: `localhost` becomes 127.0.0.1 (never
 * resolved), a bracketed IPv6 address loses its brackets, anything else is kept. The servers bind with it.
 */
export function literalAddress(host: string): string {
  if (isLocalhostName(host)) return LOCALHOST_ADDRESSES[0].address;
  return host.replace(/^\[(.*)\]$/, '$1');
}
