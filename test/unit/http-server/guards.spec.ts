import { HostGuard, OriginGuard } from '../../../src/common/http/host-guard';
import { bearerToken, SecretCheck } from '../../../src/common/http/secret-check';

describe('the Host guard', () => {
  const guard = new HostGuard('127.0.0.1', 8750, ['system1.team.example', 'lb.internal:443']);

  it('answers the loopback names and the bound address on its port', () => {
    for (const host of ['127.0.0.1:8750', 'localhost:8750', 'LOCALHOST:8750', '[::1]:8750'])
      expect(guard.allows(host)).toBe(true);
  });

  it('answers allowed names on any port, or on the one given', () => {
    expect(guard.allows('system1.team.example')).toBe(true);
    expect(guard.allows('system1.team.example:8443')).toBe(true);
    expect(guard.allows('lb.internal:443')).toBe(true);
    expect(guard.allows('lb.internal:444')).toBe(false);
  });

  it('refuses another name, another port, no Host and what a Host header cannot be', () => {
    for (const host of [
      'attacker.example:8750',
      '127.0.0.1:8751',
      '127.0.0.1',
      undefined,
      '',
      'a b',
      'user@127.0.0.1:8750',
      '127.0.0.1:8750/x',
    ]) {
      expect(guard.allows(host)).toBe(false);
    }
  });
});

describe('the Origin guard', () => {
  const guard = new OriginGuard('127.0.0.1', 8750, ['https://tools.team.example']);

  it('lets a client that is not a browser (no Origin) through', () => {
    expect(guard.allows(undefined)).toBe(true);
  });

  it('answers its own address under each loopback name, and the allowed origins', () => {
    for (const origin of [
      'http://127.0.0.1:8750',
      'http://localhost:8750',
      'http://[::1]:8750',
      'https://tools.team.example',
      'https://tools.team.example:443',
    ]) {
      expect(guard.allows(origin)).toBe(true);
    }
  });

  it('refuses other sites, other ports of this machine, other schemes and "null"', () => {
    for (const origin of [
      'http://attacker.example',
      'http://localhost:3000',
      'https://127.0.0.1:8750',
      'http://tools.team.example',
      'null',
      'file://',
      '',
    ]) {
      expect(guard.allows(origin)).toBe(false);
    }
  });
});

describe('the bearer token', () => {
  it('reads the token of an Authorization: Bearer header, and nothing else', () => {
    expect(bearerToken('Bearer abc.def-1')).toBe('abc.def-1');
    expect(bearerToken('bearer abc')).toBe('abc');
    for (const header of [undefined, '', 'Basic abc', 'Bearer', 'Bearer a b', 'abc'])
      expect(bearerToken(header)).toBeUndefined();
  });

  it('matches the secret exactly', () => {
    const check = new SecretCheck('s3cret-token');
    expect(check.matches('s3cret-token')).toBe(true);
    for (const sent of [undefined, '', 's3cret-toke', 's3cret-token ', 'S3CRET-TOKEN', 's3cret-token-and-more'])
      expect(check.matches(sent)).toBe(false);
  });

  it('keeps no copy of the secret that could be printed', () => {
    const check = new SecretCheck('s3cret-token');
    expect(JSON.stringify(check)).not.toContain('s3cret');
    expect(require('node:util').inspect(check, { depth: 5 })).not.toContain('s3cret');
  });
});
