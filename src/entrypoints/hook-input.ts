/** What a hook read on stdin. */
export type HookInput = { kind: 'json'; value: unknown } | { kind: 'over-cap' } | { kind: 'not-json' };

/**
 * The hook JSON from stdin, read up to `maxBytes`. Past the cap it stops reading and says so rather than
 * hold a runaway paste: a 60 MB prompt read whole took the route hook 1.2 GB and four times its budget.
 */
export async function readHookInput(stdin: AsyncIterable<Buffer | string>, maxBytes: number): Promise<HookInput> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    // Leaving the loop destroys the stream: the rest is never read.
    if (total > maxBytes) return { kind: 'over-cap' };
    chunks.push(bytes);
  }
  try {
    return { kind: 'json', value: JSON.parse(Buffer.concat(chunks, total).toString('utf8')) as unknown };
  } catch {
    return { kind: 'not-json' };
  }
}
