import { Injectable } from '@nestjs/common';

export interface RerankerHealthReport {
  /** Something answered /health with the reranker's body (status ok, its capabilities). */
  reranker: boolean;
  model?: string;
}

/** GET /health of a server on 127.0.0.1, the way the launcher waits on it. */
@Injectable()
export class RerankerHealth {
  async check(port: number): Promise<RerankerHealthReport> {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`, {
        signal: AbortSignal.timeout(5000),
        redirect: 'manual',
      });
      if (!response.ok) return { reranker: false };
      const body = (await response.json()) as { status?: unknown; model?: unknown; capabilities?: unknown };
      const reranker = body.status === 'ok' && typeof body.capabilities === 'object' && body.capabilities !== null;
      return { reranker, ...(typeof body.model === 'string' && { model: body.model }) };
    } catch {
      return { reranker: false };
    }
  }
}
