declare module 'proxy-from-env' {
  /** The proxy URL for `url` from the process's HTTP(S)_PROXY / NO_PROXY, or '' for none. */
  export function getProxyForUrl(url: string | URL): string;
}
