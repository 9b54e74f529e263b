import { RecordingServer } from '../fakes/recording-server';

export interface RecordingProxyOptions {
  /** How the proxy answers every CONNECT (default 502). */
  connectStatus?: number;
  /** `user:password` written into the proxy URLs, as a proxy that wants credentials is configured. */
  credentials?: string;
}

/**
 * For the enclosing describe: HTTP_PROXY and HTTPS_PROXY (both spellings) point at a server that records
 * what reaches it, NO_PROXY is cleared, and the environment is restored afterwards. The hits are cleared
 * before each test.
 */
export function useRecordingProxy({ connectStatus = 502, credentials }: RecordingProxyOptions = {}): RecordingServer {
  const proxy = new RecordingServer();
  proxy.connectStatus = connectStatus;
  const saved = { ...process.env };
  beforeAll(async () => {
    const address = await proxy.start();
    if (credentials) [address.username, address.password] = credentials.split(':');
    const url = address.href;
    Object.assign(process.env, {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      NO_PROXY: '',
      no_proxy: '',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await proxy.stop();
  });
  beforeEach(() => (proxy.hits.length = 0));
  return proxy;
}
