import { RecordingServer } from '../fakes/recording-server';

/**
 * For the enclosing describe: HTTP_PROXY and HTTPS_PROXY (both spellings) point at a server that records
 * what reaches it, NO_PROXY is cleared, and the environment is restored afterwards. The hits are cleared
 * before each test.
 */
export function useRecordingProxy(): RecordingServer {
  const proxy = new RecordingServer();
  const saved = { ...process.env };
  beforeAll(async () => {
    const url = (await proxy.start()).href;
    Object.assign(process.env, { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: '', no_proxy: '' });
  });
  afterAll(async () => {
    process.env = saved;
    await proxy.stop();
  });
  beforeEach(() => (proxy.hits.length = 0));
  return proxy;
}
