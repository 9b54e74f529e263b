import { Readable } from 'node:stream';
import { readHookInput } from '../../src/entrypoints/hook-input';

describe('readHookInput (the hooks read stdin up to a cap)', () => {
  it('parses the hook JSON under the cap', async () => {
    const stdin = Readable.from([Buffer.from('{"prompt":'), Buffer.from('"Design it"}')]);
    expect(await readHookInput(stdin, 1024)).toEqual({ kind: 'json', value: { prompt: 'Design it' } });
    expect(await readHookInput(Readable.from([Buffer.from('{"prompt":')]), 1024)).toEqual({ kind: 'not-json' });
  });

  it('stops reading past the cap and closes the input, however much more was coming', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 0x20));
      },
    });
    expect(await readHookInput(endless, 1024 * 1024)).toEqual({ kind: 'over-cap' });
    expect(endless.destroyed).toBe(true);
    expect(produced).toBeLessThan(4 * 1024 * 1024);
  });
});
