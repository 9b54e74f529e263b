import { loadConfig } from '../../../src/config/config.loader';
import { settleHttpOptions } from '../../../src/http-server/http-options';
import { MAX_LINE_BYTES } from '../../../src/mcp/stdin-guard';

const base = { HOME: '/test/home', SYSTEM1_INSTALL_DIR: '/test/install', SYSTEM1_CONFIG: '/test/config.toml' };
const settle = (env: Record<string, string> = {}, toml = '', flags = {}) => {
  const all = { ...base, ...env };
  return settleHttpOptions(loadConfig({ env: all, readFile: () => toml }), flags, all);
};

describe('serve-http options', () => {
  it('binds 127.0.0.1:8750 without a token by default, with the stdio line limit as the body cap', () => {
    const { options, problems } = settle();
    expect(problems).toEqual([]);
    expect(options).toMatchObject({
      host: '127.0.0.1',
      port: 8750,
      allowedHosts: [],
      allowedOrigins: [],
      limits: { maxBodyBytes: MAX_LINE_BYTES, maxInFlight: 128 },
    });
    expect(options?.tokens.none).toBe(true);
    expect(options?.oauth).toBeUndefined();
  });

  it('takes [http] keys from the file, SYSTEM1_HTTP_* variables over them, and flags over both', () => {
    const { options } = settle(
      { SYSTEM1_HTTP_PORT: '9001', SYSTEM1_HTTP_MAX_IN_FLIGHT: '4' },
      '[http]\nport = 9000\nmax_in_flight = 2\nallowed_hosts = ["a.example"]\nheaders_timeout_s = 2\n',
      { host: 'localhost' },
    );
    expect(options).toMatchObject({
      host: 'localhost',
      port: 9001,
      allowedHosts: ['a.example'],
      limits: { maxInFlight: 4, headersTimeoutMs: 2000 },
    });
    expect(settle({}, '[http]\nport = 9000\n', { port: 0 }).options?.port).toBe(0);
  });

  it('refuses an address other machines reach without a token, and allows it with one', () => {
    const open = settle({}, '', { host: '0.0.0.0' });
    expect(open.options).toBeUndefined();
    expect(open.problems).toEqual([expect.stringContaining('host 0.0.0.0 is not this machine')]);
    expect(settle({}, '[http]\nhost = "10.0.0.5"\n').problems).toEqual([expect.stringContaining('SYSTEM1_HTTP_TOKEN')]);
    const withToken = settle({ SYSTEM1_HTTP_TOKEN: 'tok-123' }, '', { host: '0.0.0.0' }).options;
    expect([withToken?.host, withToken?.tokens.identify('tok-123'), withToken?.tokens.identify('tok-12')]).toEqual([
      '0.0.0.0',
      'default',
      undefined,
    ]);
    expect(settle({}, '', { host: '[::1]' }).problems).toEqual([]);
  });

  it('refuses a blank token rather than running without one', () => {
    const { options, problems } = settle({ SYSTEM1_HTTP_TOKEN: ' \t' });
    expect(options).toBeUndefined();
    expect(problems).toEqual([expect.stringContaining('SYSTEM1_HTTP_TOKEN is set but blank')]);
  });

  it('refuses a token in the file as a secret, without repeating it', () => {
    const { options, problems } = settle({}, '[http]\ntoken = "file-secret-99"\n');
    expect(options).toBeUndefined();
    expect(problems).toEqual([expect.stringContaining('http.token is a secret')]);
    expect(problems.join(' ')).not.toContain('file-secret-99');
  });

  it('names a bad [http] value, and headers allowed longer than the whole request', () => {
    expect(settle({ SYSTEM1_HTTP_MAX_IN_FLIGHT: '0' }).problems).toEqual([
      expect.stringContaining('SYSTEM1_HTTP_MAX_IN_FLIGHT'),
    ]);
    expect(settle({}, '[http]\nheaders_timeout_s = 20\nrequest_timeout_s = 10\n').problems).toEqual([
      expect.stringContaining('headers_timeout_s (20) must not be above request_timeout_s (10)'),
    ]);
  });

  it('is not stopped by problems elsewhere in the config (the tools report those)', () => {
    expect(settle({ SYSTEM1_TIMEOUT_S: 'soon' }).problems).toEqual([]);
  });
});
