import { clip, oneLine, shown } from '../../../src/common/clip';

describe('clip: the one way text is kept short in messages and log lines', () => {
  it('keeps text up to the limit whole, and cuts longer text to the limit with its mark', () => {
    expect(clip('a'.repeat(60), 60)).toBe('a'.repeat(60));
    expect(clip('a'.repeat(61), 60)).toBe(`${'a'.repeat(57)}...`);
    expect(clip('a'.repeat(300), 200, '…')).toHaveLength(200);
    expect(clip('abcdef', 4, '')).toBe('abcd');
  });

  it('never keeps half of a surrogate pair', () => {
    const cut = clip(`${'a'.repeat(56)}😀${'b'.repeat(10)}`, 60);
    expect(cut).toBe(`${'a'.repeat(56)}...`);
    expect(/[\ud800-\udbff]$/.test(cut.slice(0, -3))).toBe(false);
  });

  it('oneLine folds white space; shown renders any value as short JSON', () => {
    expect(oneLine('engine\n  down\tnow', 200)).toBe('engine down now');
    expect(shown('x'.repeat(100))).toBe(`"${'x'.repeat(56)}...`);
    expect(shown(undefined)).toBe('undefined');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(shown(loop)).toBe('object');
  });
});
