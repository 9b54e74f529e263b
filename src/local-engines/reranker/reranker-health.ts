import { Injectable } from '@nestjs/common';
import { type EngineTiming, readEngineTiming } from './engine-timing';

export interface RerankerHealthReport {
  /** Something answered /health with the reranker's body (status ok, its capabilities). */
  reranker: boolean;
  model?: string;
  /** What a decision costs on this machine, when the engine timed itself at start (and said it well formed). */
  timing?: EngineTiming;
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
      const body = (await response.json()) as {
        status?: unknown;
        model?: unknown;
        capabilities?: unknown;
        timing?: unknown;
      };
      const reranker = body.status === 'ok' && typeof body.capabilities === 'object' && body.capabilities !== null;
      const timing = readEngineTiming(body.timing);
      return { reranker, ...(typeof body.model === 'string' && { model: body.model }), ...(timing && { timing }) };
    } catch {
      return { reranker: false };
    }
  }
}
