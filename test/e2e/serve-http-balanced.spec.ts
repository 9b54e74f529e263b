/**
 * `system1 serve-http` as a team runs it: three replicas of the built server on loopback behind a real load
 * balancer (haproxy from examples/haproxy.cfg, nginx from examples/nginx.conf, each with this test's ports),
 * decisions sent through it by the MCP SDK's Streamable HTTP client while one replica is killed (SIGKILL) and
 * restarted. Needs haproxy (and, for its part, nginx) installed: `.ci/run` installs both with apt-get; a
 * machine without it skips these suites and says so. The long version is bench/http.js.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  findExecutable,
  freePort,
  haproxyConfig,
  haproxyStats,
  nginxConfig,
  serverStates,
  startHaproxy,
  waitForStates,
  writeConfig,
} from '../../bench/load-balancer';
import { requireBuild, Sandbox } from './helpers/gateway';
import { HttpServerProcess, structured } from './helpers/http-server-process';
import { eventually, eventuallyRead } from '../helpers/eventually';
import { describeUnless } from '../helpers/skip-unless';
import { send } from '../helpers/router-harness';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';

const TOKEN = 'e2e-balanced-token-5b8e21c4';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
/** Each decision takes this long in the mock engine, so that the replica killed has some in flight. */
const DECISION_DELAY_S = '0.05';

const haproxy = findExecutable('haproxy');
const nginx = findExecutable('nginx');
for (const [name, found] of [
  ['haproxy', haproxy],
  ['nginx', nginx],
] as const) {
  if (!found)
    console.warn(
      `SKIPPED: ${name} is not installed, so serve-http behind ${name} is not tested here (apt-get install ${name}; .ci/run installs haproxy)`,
    );
}

/** The replicas, each on a port of its own that a restart takes again, and their sandbox. */
class Replicas {
  readonly sandbox = new Sandbox();
  readonly processes: HttpServerProcess[] = [];
  /** Every process each replica has had (a restarted replica's first life included), for the access logs. */
  readonly lives: HttpServerProcess[][] = [];

  constructor(
    readonly count: number,
    /** The load balancer's address: the Host header clients send, which each replica must answer to. */
    readonly balancerPort: number,
  ) {}

  async start(): Promise<void> {
    const started = await Promise.all(Array.from({ length: this.count }, () => this.launch(0)));
    started.forEach((process, i) => {
      this.processes[i] = process;
      this.lives[i] = [process];
    });
  }

  ports(): number[] {
    return this.processes.map((process) => process.port);
  }

  async restart(index: number): Promise<HttpServerProcess> {
    const process = await this.launch(this.processes[index].port);
    this.processes[index] = process;
    this.lives[index].push(process);
    return process;
  }

  /** The request ids each life of replica `index` answered a decision for, from its access log. */
  answeredBy(process: HttpServerProcess): string[] {
    return [...process.stderr().matchAll(/ (\S+) POST \/mcp tools\/call system1_decide -> 200 /g)].map(
      (match) => match[1],
    );
  }

  async stop(): Promise<void> {
    const all = this.lives.flat();
    for (const process of all) process.kill();
    await Promise.all(all.map((process) => process.exited));
    this.sandbox.dispose();
  }

  private launch(port: number): Promise<HttpServerProcess> {
    const env = {
      SYSTEM1_PROVIDER: 'mock',
      SYSTEM1_MOCK_DELAY_S: DECISION_DELAY_S,
      SYSTEM1_HTTP_TOKEN: TOKEN,
      SYSTEM1_HTTP_ALLOWED_HOSTS: `127.0.0.1:${this.balancerPort}`,
    };
    return HttpServerProcess.start(this.sandbox, env, ['--port', String(port)]);
  }
}

/** How many MCP requests a replica is answering now (its own gauge). */
async function inFlight(replica: HttpServerProcess): Promise<number> {
  const answer = await send(replica.port, {
    method: 'GET',
    path: '/metrics',
    headers: { authorization: AUTH.Authorization },
  });
  return sampleValue(parsePrometheusText(answer.text), 'system1_http_requests_in_flight') ?? 0;
}

/** Waits until the replica is answering at least one request (bounded: the run cannot be over by then). */
async function busy(replica: HttpServerProcess): Promise<void> {
  await eventuallyRead(
    () => inFlight(replica),
    (count) => count > 0,
    `replica on port ${replica.port} with a request in flight`,
    20_000,
  );
}

async function readyz(replica: HttpServerProcess): Promise<number> {
  return (await send(replica.port, { method: 'GET', path: '/readyz' })).status;
}

interface Run {
  /** How many times each request id came back to the client, and what came back. */
  answers: Map<string, { count: number; status: unknown; requestId: unknown }>;
  /** Calls that failed at the client (an HTTP error through the balancer, a transport error). */
  failures: string[];
}

/** Where a run stands, as the client sees it: the ids sent and not yet answered, and those answered, in order. */
interface Progress {
  pending: ReadonlySet<string>;
  answered: readonly string[];
}

/**
 * Sends `total` decisions through `url` with `inFlight` at once, one MCP client per worker, each with its own
 * request id. `during(answered, progress)` is called after every answer, and the decisions from `gateAt` on
 * wait for `gate` (the restarted replica back in the pool) so that some are left for it.
 */
async function sendDecisions(
  url: string,
  total: number,
  inFlightCount: number,
  during: (answered: number, progress: Progress) => void,
  gate?: { at: number; open: Promise<void> },
): Promise<Run> {
  const answers: Run['answers'] = new Map();
  const failures: string[] = [];
  const progress = { pending: new Set<string>(), answered: [] as string[] };
  let next = 0;
  let answered = 0;
  const worker = async () => {
    const client = new Client({ name: 'system1-e2e-balanced', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: AUTH } }));
    try {
      while (next < total) {
        const i = next++;
        if (gate && i >= gate.at) await gate.open;
        const requestId = `balanced-${i}`;
        progress.pending.add(requestId);
        try {
          const body = structured(
            await client.callTool({
              name: 'system1_decide',
              arguments: { question: `Rerun job ${i}?`, options: ['rerun', 'block'], request_id: requestId },
            }),
          );
          const seen = answers.get(requestId);
          answers.set(requestId, { count: (seen?.count ?? 0) + 1, status: body.status, requestId: body.request_id });
        } catch (error) {
          failures.push(`${requestId}: ${error instanceof Error ? error.message : String(error)}`);
        }
        progress.pending.delete(requestId);
        progress.answered.push(requestId);
        during(++answered, progress);
      }
    } finally {
      await client.close();
    }
  };
  await Promise.all(Array.from({ length: inFlightCount }, worker));
  return { answers, failures };
}

/** Every id from 0 to total-1 answered exactly once, decided, under its own id. */
function expectEachAnsweredOnce(run: Run, total: number): void {
  expect(run.failures).toEqual([]);
  const wrong = [...run.answers].filter(
    ([id, answer]) => answer.count !== 1 || answer.status !== 'decided' || answer.requestId !== id,
  );
  expect(wrong).toEqual([]);
  const missing = Array.from({ length: total }, (_, i) => `balanced-${i}`).filter((id) => !run.answers.has(id));
  expect(missing).toEqual([]);
  expect(run.answers.size).toBe(total);
}

beforeAll(() => requireBuild());

describeUnless(haproxy ? undefined : 'haproxy is not installed (apt-get install haproxy; .ci/run does)')(
  'serve-http: three replicas behind haproxy (examples/haproxy.cfg)',
  () => {
    const DECISIONS = 1000;
    const IN_FLIGHT = 32;
    /** The replica killed once this many decisions are answered, and restarted. */
    const KILL_AFTER = 250;
    /** Decisions from here on wait for the restarted replica to be back in haproxy's pool. */
    const LEFT_FOR_THE_RESTARTED = 750;
    let dir: string;
    let replicas: Replicas | undefined;
    let balancer: ReturnType<typeof startHaproxy> | undefined;

    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'system1-haproxy-'));
    });

    afterEach(async () => {
      await balancer?.stop();
      await replicas?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers every decision exactly once while a replica is killed and restarted, and the restarted replica takes traffic again', async () => {
      const frontendPort = await freePort();
      replicas = new Replicas(3, frontendPort);
      await replicas.start();
      const statsSocket = path.join(dir, 'haproxy.sock');
      const config = writeConfig(
        path.join(dir, 'haproxy.cfg'),
        haproxyConfig({ frontendPort, replicaPorts: replicas.ports(), statsSocket }),
      );
      balancer = startHaproxy(haproxy!, config);
      // Up once its /readyz health checks pass ("rise" of them in a row).
      await waitForStates(
        statsSocket,
        (states) => Object.keys(states).length === 3 && Object.values(states).every((state) => state === 'UP'),
      );

      const victim = 1;
      const firstLife = replicas.processes[victim];
      let openGate!: () => void;
      const gate = { at: LEFT_FOR_THE_RESTARTED, open: new Promise<void>((resolve) => (openGate = resolve)) };
      const story: string[] = [];
      let cycle: Promise<void> | undefined;
      /** What the victim may have had in flight when killed: the only decisions that may miss every access log. */
      let inFlightAtKill = new Set<string>();
      const killAndRestart = async (progress: Progress) => {
        const answeredBefore = progress.answered.length;
        // Killed while it is answering: haproxy must send those requests again, to another replica.
        await busy(firstLife);
        // The client's view holds the victim's: still unanswered, or answered since busy() saw it answering.
        inFlightAtKill = new Set([...progress.pending, ...progress.answered.slice(answeredBefore)]);
        firstLife.kill();
        story.push(`killed with requests in flight (exit ${await firstLife.exited})`);
        await waitForStates(statsSocket, (states) => states.replica2 === 'DOWN');
        story.push('haproxy marked it DOWN');
        const secondLife = await replicas!.restart(victim);
        expect(await readyz(secondLife)).toBe(200);
        await waitForStates(statsSocket, (states) => states.replica2 === 'UP');
        story.push('restarted, /readyz 200, haproxy marked it UP');
        openGate();
      };
      const run = await sendDecisions(
        `http://127.0.0.1:${frontendPort}/mcp`,
        DECISIONS,
        IN_FLIGHT,
        (answered, progress) => {
          if (answered === KILL_AFTER)
            cycle = killAndRestart(progress).catch((error) => {
              openGate();
              throw error;
            });
        },
        gate,
      );
      await cycle;

      expect(story).toEqual([
        expect.stringMatching(/^killed with requests in flight/),
        'haproxy marked it DOWN',
        'restarted, /readyz 200, haproxy marked it UP',
      ]);
      expectEachAnsweredOnce(run, DECISIONS);

      // Every answer came from a replica (a request cut off by the kill may have been answered twice there,
      // never twice to the client); the restarted replica answered its share of what was left.
      const unlogged = () => {
        const answeredSomewhere = new Set(replicas!.lives.flat().flatMap((life) => replicas!.answeredBy(life)));
        return Array.from({ length: DECISIONS }, (_, i) => `balanced-${i}`).filter((id) => !answeredSomewhere.has(id));
      };
      // A replica logs a request just after answering it: the lines of the last answers may still be on their way,
      // and the SIGKILL can fall between an answer the victim sent and its log line: only what it had in flight.
      expect(inFlightAtKill.size).toBeGreaterThan(0);
      await eventually(
        () => unlogged().every((id) => inFlightAtKill.has(id)),
        `every decision in some replica's access log, but those the killed replica had in flight (${[...inFlightAtKill].join(' ')})`,
      );
      const byLife = replicas.lives.map((lives) => lives.map((life) => replicas!.answeredBy(life)));
      const [before, after] = byLife[victim];
      expect(before.length).toBeGreaterThan(0);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((id) => Number(id.replace('balanced-', '')) >= KILL_AFTER)).toBe(true);
      for (const other of [0, 2]) expect(byLife[other][0].length).toBeGreaterThan(0);

      // haproxy did send requests again: the kill cut some off or found the port closed.
      const backend = (await haproxyStats(statsSocket)).find(
        (row) => row.pxname === 'system1_replicas' && row.svname === 'BACKEND',
      )!;
      expect(Number(backend.wretr) + Number(backend.wredis)).toBeGreaterThan(0);
      expect(await serverStates(statsSocket)).toEqual({ replica1: 'UP', replica2: 'UP', replica3: 'UP' });
    }, 120_000);
  },
);

/** nginx in the foreground on `config` (prefix dir `dir`); resolves once it accepts on `port`. */
async function startNginx(binary: string, dir: string, config: string, port: number): Promise<ChildProcess> {
  const child = spawn(binary, ['-p', dir, '-e', 'stderr', '-c', config, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const status = await send(port, { method: 'GET', path: '/nothing-here' }).then(
      (answer) => answer.status,
      () => 0,
    );
    if (status === 404) return child;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeUnless(nginx ? undefined : 'nginx is not installed (apt-get install nginx; .ci/run does)')(
  'serve-http: three replicas behind nginx (examples/nginx.conf)',
  () => {
    let dir: string;
    let replicas: Replicas | undefined;
    let server: ChildProcess | undefined;

    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'system1-nginx-'));
    });

    afterEach(async () => {
      if (server && server.exitCode === null) {
        const exited = new Promise((resolve) => server!.once('exit', resolve));
        server.kill('SIGQUIT');
        await exited;
      }
      await replicas?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('passes `nginx -t` with the ports substituted', async () => {
      const config = writeConfig(
        path.join(dir, 'nginx.conf'),
        nginxConfig({ frontendPort: await freePort(), replicaPorts: [8751, 8752, 8753], prefix: dir }),
      );
      const checked = await new Promise<{ code: number; output: string }>((resolve) =>
        execFile(nginx!, ['-t', '-p', dir, '-e', 'stderr', '-c', config], (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code) : 0, output: stdout + stderr }),
        ),
      );
      expect(checked).toMatchObject({ code: 0, output: expect.stringContaining('test is successful') });
    });

    it('answers every decision exactly once while a replica is killed', async () => {
      const frontendPort = await freePort();
      replicas = new Replicas(3, frontendPort);
      await replicas.start();
      const config = writeConfig(
        path.join(dir, 'nginx.conf'),
        nginxConfig({ frontendPort, replicaPorts: replicas.ports(), prefix: dir }),
      );
      server = await startNginx(nginx!, dir, config, frontendPort);
      const victim = replicas.processes[2];
      let killed: Promise<void> | undefined;
      const run = await sendDecisions(`http://127.0.0.1:${frontendPort}/mcp`, 300, 16, (answered) => {
        if (answered === 100)
          killed = (async () => {
            await busy(victim);
            victim.kill();
          })();
      });
      await killed;
      expect(victim.child.signalCode).toBe('SIGKILL');
      expectEachAnsweredOnce(run, 300);
      expect(replicas.answeredBy(victim).length).toBeGreaterThan(0);
    }, 60_000);
  },
);
