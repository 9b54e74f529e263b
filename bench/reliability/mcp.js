// Probes of the stdio MCP server with raw JSON-RPC lines, as a client (or something posing as one) sends
// them: which messages got exactly one answer, what stderr got, how the process ended.
'use strict';
const { readFileSync } = require('node:fs');
const { RAW_CONTROL, sandbox, launch, jsonLines, stderrLines, sleep } = require('./child');

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'reliability', version: '0' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
/** How long a probe waits for the answers it expects before it counts the missing ones as unanswered. */
const ANSWER_WAIT_MS = 3_000;

const call = (id, name, args) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** The forged request id of issue 17: clear screen, red, a carriage return over the line, a bell. */
const FORGED_ID = 'x\u001b[2J\u001b[31mFAKE\rZZZZ forged\u0007';

/** A started `mcp` with its handshake sent; `replies()` parses stdout so far; `until(test)` polls it. */
function session(main, env) {
  const launched = launch(main, ['mcp'], { env });
  const send = (line) => launched.child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  send(INITIALIZE);
  send(INITIALIZED);
  const replies = () => jsonLines(launched.stdoutSoFar()).messages;
  const until = async (test, waitMs = ANSWER_WAIT_MS) => {
    for (let waited = 0; waited < waitMs && !test(replies()); waited += 50) await sleep(50);
    return test(replies());
  };
  const finish = async () => {
    launched.child.stdin.end();
    return launched.done;
  };
  return { ...launched, send, replies, until, finish };
}

const countById = (replies, id) => replies.filter((reply) => JSON.stringify(reply.id) === JSON.stringify(id)).length;

/** Lines the server wrote besides its start-up line. */
const stderrAfterStart = (stderr) =>
  stderrLines(
    stderr
      .split('\n')
      .filter((line) => !/serving \d+ tools on stdio/.test(line))
      .join('\n'),
  );

/**
 * Sends `messages` (each { line, id } where id is the id an answer must carry: the message's own, or null for
 * one whose id is unusable) and counts those answered exactly once.
 */
async function answersTo(main, messages, env) {
  const box = sandbox();
  try {
    const s = session(main, box.env({ SYSTEM1_PROVIDER: 'mock', ...env }));
    await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
    for (const { line } of messages) s.send(line);
    const expected = (replies) => {
      const nulls = messages.filter(({ id }) => id === null).length;
      return (
        messages.every(({ id }) => id === null || countById(replies, id) >= 1) && countById(replies, null) >= nulls
      );
    };
    await s.until(expected);
    const result = await s.finish();
    const replies = jsonLines(result.stdout).messages.filter((reply) => reply.id !== INITIALIZE.id);
    const usable = messages.filter(({ id }) => id !== null);
    const onceEach = usable.filter(({ id }) => countById(replies, id) === 1).length;
    const unusable = messages.length - usable.length;
    const errors = replies.filter((reply) => reply.error).map((reply) => String(reply.error.message ?? ''));
    return {
      sent: messages.length,
      answered_once: onceEach + Math.min(unusable, countById(replies, null)),
      not_answered_once: messages.length - onceEach - Math.min(unusable, countById(replies, null)),
      longest_error_message_chars: Math.max(0, ...errors.map((message) => message.length)),
      zod_dump_in_an_answer: errors.some((message) => /"code":\s*"invalid_/.test(message)),
      stderr_lines: stderrAfterStart(result.stderr),
      protocol_error_logged: /protocol error/.test(result.stderr),
      replies: replies.map((reply) => ({
        id: reply.id,
        ...(reply.error
          ? { error: reply.error.code }
          : { status: reply.result?.structuredContent?.status ?? 'result' }),
      })),
    };
  } finally {
    box.dispose();
  }
}

/** `"constructor": null` among a tool's arguments (issue 17: dropped, "Cannot read properties of null"). */
function prototypeArguments(main) {
  return answersTo(main, [
    { id: 1, line: call(1, 'system1_decide', { question: 'q?', options: ['a', 'b'], constructor: null }) },
    { id: 2, line: call(2, 'system1_health', { constructor: null }) },
  ]);
}

/** Requests with a usable id but a misshapen envelope, and ids that are not usable (answered with id null). */
function misshapenRequests(main) {
  const line = (message) => JSON.stringify(message);
  return answersTo(main, [
    { id: 11, line: line({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: null }) },
    { id: 12, line: line({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: [] }) },
    { id: 13, line: line({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: 'x' }) },
    { id: 14, line: line({ jsonrpc: '2.0', id: 14, method: 'tools/call', params: 5 }) },
    { id: 15, line: line({ jsonrpc: '2.0', id: 15, method: 'tools/list', params: { _meta: 5 } }) },
    { id: 16, line: line({ jsonrpc: '2.0', id: 16, method: 'tools/list', extra: 1 }) },
    { id: 17, line: line({ jsonrpc: '1.0', id: 17, method: 'tools/list' }) },
    { id: 18, line: line({ id: 18, method: 'tools/list' }) },
    { id: 19, line: line({ jsonrpc: '2.0', id: 19, method: 'tools/call', params: { name: 5 } }) },
    { id: null, line: line({ jsonrpc: '2.0', id: true, method: 'tools/list' }) },
    { id: null, line: line({ jsonrpc: '2.0', id: 1.5, method: 'tools/list' }) },
    { id: null, line: line({ jsonrpc: '2.0', id: {}, method: 'tools/list' }) },
  ]);
}

/** A decision in flight when the client closes stdin (the mock answers after 1 s; stdin closes at 0.6 s). */
async function stdinClosedMidAnswer(main) {
  const box = sandbox();
  try {
    const s = session(main, box.env({ SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_DELAY_S: '1' }));
    await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
    s.send(call(1, 'system1_decide', { question: 'Rerun or block?', options: ['rerun', 'block'] }));
    await sleep(600);
    const result = await s.finish();
    const answer = jsonLines(result.stdout).messages.find((reply) => reply.id === 1);
    return {
      answered: Boolean(answer),
      status: answer?.result?.structuredContent?.status ?? null,
      exit_code: result.exit_code,
      ended: result.ended,
    };
  } finally {
    box.dispose();
  }
}

/** The client closes the server's stdout, then asks for a decision (issue 17: unhandled EPIPE). */
async function stdoutClosed(main) {
  const box = sandbox();
  try {
    const s = session(main, box.env({ SYSTEM1_PROVIDER: 'mock' }));
    await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
    s.child.stdout.destroy();
    await sleep(100);
    for (let id = 1; id <= 3; id++)
      s.send(call(id, 'system1_decide', { question: 'Rerun or block?', options: ['rerun', 'block'] }));
    await sleep(1_000);
    const result = await s.finish();
    return {
      exit_code: result.exit_code,
      ended: result.ended,
      stack_trace_on_stderr: /^\s+at /m.test(result.stderr),
      epipe_on_stderr: /EPIPE/.test(result.stderr),
      stderr_lines: stderrAfterStart(result.stderr),
    };
  } finally {
    box.dispose();
  }
}

/** A decision whose request_id carries terminal controls, with a log_file (issue 17: written raw to both). */
async function forgedRequestId(main) {
  const box = sandbox();
  try {
    const logFile = box.file('gateway.log');
    const config = box.file(
      'config.toml',
      `[gateway]\nprovider = "mock"\nlog_level = "INFO"\nlog_file = "${logFile}"\n`,
    );
    const s = session(main, box.env({ SYSTEM1_CONFIG: config }));
    await s.until((replies) => countById(replies, INITIALIZE.id) === 1);
    s.send(
      call(1, 'system1_decide', { question: 'Rerun or block?', options: ['rerun', 'block'], request_id: FORGED_ID }),
    );
    await s.until((replies) => countById(replies, 1) === 1);
    const result = await s.finish();
    let logged = '';
    try {
      logged = readFileSync(logFile, 'utf8');
    } catch {
      // no log file: nothing raw in it
    }
    return {
      answered: jsonLines(result.stdout).messages.some((reply) => reply.id === 1),
      id_logged_on_stderr: /FAKE/.test(result.stderr),
      raw_controls_on_stderr: RAW_CONTROL.test(result.stderr),
      raw_controls_in_log_file: RAW_CONTROL.test(logged),
    };
  } finally {
    box.dispose();
  }
}

module.exports = {
  FORGED_ID,
  prototypeArguments,
  misshapenRequests,
  stdinClosedMidAnswer,
  stdoutClosed,
  forgedRequestId,
  countById,
  session,
  INITIALIZE,
};
