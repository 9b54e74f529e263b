/** `[state]`: the store's URL, prefix and deadline from the file and SYSTEM1_STATE_*; a password only from the environment. */
import { IN_PROCESS } from '../../../src/state/shared-state';
import { configOf, openState } from '../../helpers/redis-store';

describe('[state] settings', () => {
  it('default to no store: everything in the process, prefix system1:, a 50 ms deadline', () => {
    const config = configOf('');
    expect(config.state).toEqual({ url: '', prefix: 'system1:', deadline_ms: 50 });
    expect(config.errors).toEqual([]);
    expect(openState('').state).toBe(IN_PROCESS);
  });

  it('are read from the file and overridden by SYSTEM1_STATE_URL / _PREFIX / _DEADLINE_MS', () => {
    const toml = '[state]\nurl = "redis://cache.internal:6379"\nprefix = "team-a:"\ndeadline_ms = 20\n';
    expect(configOf(toml).state).toEqual({ url: 'redis://cache.internal:6379', prefix: 'team-a:', deadline_ms: 20 });
    const env = { SYSTEM1_STATE_URL: 'rediss://:s3cret-env@cache:6380', SYSTEM1_STATE_PREFIX: 'b:' };
    const config = configOf(toml, env);
    expect(config.errors).toEqual([]);
    expect(config.state).toMatchObject({ url: 'rediss://:s3cret-env@cache:6380', prefix: 'b:' });
  });

  it('refuse a password written in the file, naming the key and the variables, never quoting it', () => {
    const config = configOf('[state]\nurl = "redis://:hunter2-in-file@cache:6379"\n');
    expect(config.state.url).toBe('');
    expect(config.errors).toHaveLength(1);
    expect(config.errors[0].key).toBe('state.url');
    expect(config.errors[0].message).toMatch(/SYSTEM1_STATE_PASSWORD/);
    expect(JSON.stringify(config.errors)).not.toContain('hunter2');
  });

  it('refuse a URL that is not redis:// or rediss://, without echoing it', () => {
    for (const url of ['http://user:pw-xyz@cache:6379', 'not a url pw-xyz']) {
      const config = configOf('', { SYSTEM1_STATE_URL: url });
      expect(config.errors.map((error) => error.key)).toEqual(['SYSTEM1_STATE_URL']);
      expect(config.errors[0].message).toMatch(/redis:\/\/host:port/);
      expect(JSON.stringify(config.errors)).not.toContain('pw-xyz');
      expect(config.state.url).toBe('');
    }
  });

  it('refuse a deadline out of range and a password key in the file', () => {
    const config = configOf('[state]\ndeadline_ms = 5000\npassword = "x"\n');
    expect(config.errors.map((error) => error.key).sort()).toEqual(['state.deadline_ms', 'state.password']);
  });
});
