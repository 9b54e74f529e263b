/**
 * Starts a fake engine on 127.0.0.1 so the gateway can be tried without a real one:
 *   npm run fake-engine -- laya --port 8765 [--fault slow] [--slow-ms 2000]
 * It prints the URL on stderr and serves until interrupted.
 */
import { FAULTS, type Fault } from './fake-engine';
import { FAKE_ENGINES } from './index';

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const flag = (key: string) => {
    const index = rest.indexOf(key);
    return index >= 0 ? rest[index + 1] : undefined;
  };
  const make = name ? FAKE_ENGINES[name] : undefined;
  if (!make) {
    process.stderr.write(
      `usage: npm run fake-engine -- <${Object.keys(FAKE_ENGINES).join('|')}> [--port N] [--fault ${FAULTS.join('|')}]\n`,
    );
    process.exitCode = 2;
    return;
  }
  const fake = make();
  const fault = flag('--fault') ?? 'none';
  if (!(FAULTS as readonly string[]).includes(fault)) {
    process.stderr.write(`unknown fault ${JSON.stringify(fault)}; one of ${FAULTS.join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  fake.fault = fault as Fault;
  if (flag('--slow-ms')) fake.slowMs = Number(flag('--slow-ms'));
  const url = await fake.start(Number(flag('--port') ?? 0));
  process.stderr.write(`fake ${name} listening on ${url.origin} (fault: ${fault}); Ctrl-C stops it\n`);
  const stop = () => void fake.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main(process.argv.slice(2));
