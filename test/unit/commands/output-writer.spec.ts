/**
 * `jsonWithItems` prints a document whose array is printed an item at a time (what `label list` prints of a
 * log larger than memory): the text is exactly what `json` prints of the whole, with no item, one, or several.
 */
import { OutputWriter } from '../../../src/commands/output.writer';

async function printed(run: (writer: OutputWriter) => unknown): Promise<string> {
  const chunks: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await run(new OutputWriter());
  } finally {
    write.mockRestore();
  }
  return chunks.join('');
}

it.each([0, 1, 3])('prints %i items as json prints the whole document, controls escaped the same', async (count) => {
  const items = Array.from({ length: count }, (_, i) => ({ id: `p${i}`, prompt: `line\nnext \u009b31m ${i}`, n: [i] }));
  const head = { log: '/tmp/routing.jsonl', waiting: count };
  const streamed = await printed((writer) => writer.jsonWithItems(head, 'entries', items.values()));
  expect(streamed).toBe(await printed((writer) => writer.json({ ...head, entries: items })));
  expect(JSON.parse(streamed)).toEqual({ ...head, entries: items });
});
