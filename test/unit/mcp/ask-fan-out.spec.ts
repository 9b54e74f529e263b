/**
 * `system1_ask` on a choice-only engine, which is asked one question per request (Ollama, over real HTTP on
 * loopback): a call of N questions costs each replica it reaches N requests, and once the call is answered
 * none of them is still open at the engine, even when one question's request failed while the others hung.
 */
import type { TestingModule } from '@nestjs/testing';
import { ConfigStatus } from '../../../src/decisions/pipeline/config-status.service';
import { AskService } from '../../../src/mcp/ask/ask.service';
import { OllamaFake } from '../../fakes/ollama.fake';
import { eventually } from '../../helpers/eventually';
import { gatewayApp } from '../../helpers/gateway-app';

const QUESTIONS = 8;
const questions = Array.from({ length: QUESTIONS }, (_, i) => ({
  id: `q${i}`,
  type: 'choice',
  instructions: `Is step ${i} safe to rerun?`,
  criteria: { rerun: null, block: null },
}));

let replicas: OllamaFake[] = [];
let app: TestingModule | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  await Promise.all(replicas.map((replica) => replica.stop()));
});

it('closes the requests still open at a replica when another question of the call failed there', async () => {
  replicas = [new OllamaFake(), new OllamaFake()];
  const endpoints: string[] = [];
  for (const replica of replicas) {
    // A replica that broke mid-call: the last of a call's requests to arrive fails, the others hang.
    let seen = 0;
    replica.chooseFault = () => (++seen % QUESTIONS === 0 ? 'status-500' : 'hang');
    endpoints.push(JSON.stringify((await replica.start()).origin));
  }
  // A timeout far past the wait below: only the gateway closing them can end the hanging requests in time.
  app = await gatewayApp({
    toml:
      `[gateway]\nprovider = "ollama"\ntimeout_s = 120\n` +
      `[providers.ollama]\nendpoints = [${endpoints.join(', ')}]\nmodel = "gemma4:e4b"\n`,
  });
  expect(app.get(ConfigStatus).errors()).toEqual([]);

  const { response } = await app.get(AskService).ask({ state: { job: 'deploy' }, questions });
  const answers = response.answers as Record<string, { status: string; error?: { code: string } }>;
  expect(Object.values(answers).map((answer) => answer.error?.code)).toEqual(Array(QUESTIONS).fill('provider_error'));
  // One request per question at each replica tried, no more.
  expect(replicas.map((replica) => replica.requestsTo('/api/chat').length)).toEqual([QUESTIONS, QUESTIONS]);
  // Every request that hung was closed by the gateway: none is left holding a socket at either replica.
  await eventually(
    () => replicas.every((replica) => replica.abandoned === QUESTIONS - 1),
    'the hanging requests of the failed attempts were closed',
  );
});
