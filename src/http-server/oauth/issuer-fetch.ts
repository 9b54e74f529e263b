/** What an issuer's JSON documents (metadata, key sets) may weigh and take: a few KB in a few seconds. */
export interface IssuerFetchLimits {
  maxBytes: number;
  timeoutMs: number;
}

export const ISSUER_DOCUMENT_LIMITS: IssuerFetchLimits = { maxBytes: 256 * 1024, timeoutMs: 5000 };

/** Why an issuer's document was not read, in words for the operator's log and the 401's reason. */
export class IssuerFetchError extends Error {}

/**
 * A JSON document from the authorization server, read with a byte cap and one deadline for the whole exchange
 * (headers and body): the issuer is a server that may lie, and nothing it sends may fill this server's memory
 * or hold a request for long. A Content-Length over the cap is refused before a byte of the body is read; a
 * body without one is counted as it arrives and the connection dropped at the cap. Redirects are not followed:
 * the operator named the issuer, and nothing else is asked.
 */
export async function fetchIssuerJson(
  url: string | URL,
  limits: IssuerFetchLimits = ISSUER_DOCUMENT_LIMITS,
  fetchImpl: typeof fetch = fetch,
): Promise<unknown> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetchImpl(url, { redirect: 'manual', signal: deadline, headers: { accept: 'application/json' } });
  } catch {
    throw new IssuerFetchError(deadline.aborted ? `no answer within ${limits.timeoutMs / 1000} s` : 'not reachable');
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new IssuerFetchError(`HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new IssuerFetchError(`larger than ${limits.maxBytes} bytes`);
  }
  const text = await readCapped(response, limits, deadline);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new IssuerFetchError('not JSON');
  }
}

async function readCapped(response: Response, limits: IssuerFetchLimits, deadline: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new IssuerFetchError(`larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof IssuerFetchError) throw error;
    throw new IssuerFetchError(
      deadline.aborted ? `not read whole within ${limits.timeoutMs / 1000} s` : 'not read whole',
    );
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
