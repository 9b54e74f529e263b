/** `system1 --help` lists every command a user or a client can run, the hooks Claude Code runs included. */
import { requireBuild, Resources, runCli } from './helpers/gateway';

beforeAll(requireBuild);
const resources = Resources.perTest();

it('lists every command, the two Claude Code hooks included', async () => {
  const result = await runCli(['--help'], resources.sandbox().env());
  expect(result.code).toBe(0);
  const listed = [...result.stdout.matchAll(/^ {2}([a-z][a-z-]+)\b/gm)].map((match) => match[1]);
  expect(listed).toEqual(
    expect.arrayContaining([
      'mcp',
      'route-hook',
      'spawn-hook',
      'smoke',
      'doctor',
      'toggle',
      'calibrate',
      'label',
      'evaluate',
      'session-check',
      'serve-openai',
      'router-report',
      'engine',
    ]),
  );
  expect(result.stdout).toMatch(/route-hook\s+the Claude Code UserPromptSubmit hook/);
  expect(result.stdout).toMatch(/label \[options\] <list\|apply\|export> \[file\]\s+label logged routing prompts/);
});

it('engine --help lists pull, start and stop of the reranker', async () => {
  const result = await runCli(['engine', '--help'], resources.sandbox().env());
  expect(result.code).toBe(0);
  const listed = [...result.stdout.matchAll(/^ {2}([a-z]+) (?:\[options\] )?<engine>/gm)].map((match) => match[1]);
  expect(listed).toEqual(['pull', 'start', 'stop']);
  expect(result.stdout).toMatch(/Hugging Face Hub layout \(HF_ENDPOINT,\s+HF_TOKEN\)/);
});

it('route-hook --help describes the hook', async () => {
  const result = await runCli(['route-hook', '--help'], resources.sandbox().env());
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('UserPromptSubmit');
});
