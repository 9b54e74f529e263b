import * as path from 'node:path';
import { isRecord } from '../common/is-record';
import { FILE_CAPS, readRegularFileSync } from '../common/regular-file';
import { PACKAGE_ROOT } from '../config/paths';
import { tierOf } from './evaluate';
import { type Tier } from './routing-rule';
import { readLines } from './transcripts';

export const SHIPPED_PRICES = path.join(PACKAGE_ROOT, 'routing', 'prices.json');

interface Price {
  input: number;
  output: number;
  cache_write: number;
  cache_read: number;
}
type Prices = Record<Tier, Price>;

interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** The price table; `--prices` names another one, which must be a regular file (a FIFO would never end). */
export function readPrices(file = SHIPPED_PRICES): Prices {
  const document = JSON.parse(readRegularFileSync(file, FILE_CAPS.data)) as { tiers?: Prices };
  if (!isRecord(document.tiers) || !(['haiku', 'sonnet', 'opus'] as const).every((t) => isRecord(document.tiers![t]))) {
    throw new Error(`${file}: expected {"tiers": {"haiku": {...}, "sonnet": {...}, "opus": {...}}}`);
  }
  return document.tiers;
}

const cost = (usage: Usage, price: Price) =>
  ((usage.input_tokens ?? 0) * price.input +
    (usage.output_tokens ?? 0) * price.output +
    (usage.cache_creation_input_tokens ?? 0) * price.cache_write +
    (usage.cache_read_input_tokens ?? 0) * price.cache_read) /
  1e6;

const HINT = /System-1 routing: .*pass model: "(haiku|sonnet|opus)"/;

/**
 * Totals from transcripts, never their text: how often hints appear, whether spawns after a hint use the
 * hinted tier, what subagents cost by tier, the savings realised by following hints and missed by not, and
 * what the hints themselves cost in context.
 */
export function usageReport(files: readonly string[], prices: Prices) {
  const subagentUsage = new Map<string, { tier: Tier | null; usage: Usage[] }>();
  const mainFiles: string[] = [];
  for (const file of files) {
    const agent = /agent-([^/\\]+)\.jsonl$/.exec(file);
    if (!agent) {
      mainFiles.push(file);
      continue;
    }
    // One API response spans several lines with a repeated usage: keep the largest per message.
    const responses = new Map<string, { tier: Tier | null; usage: Usage }>();
    for (const line of readLines(file)) {
      const message = isRecord(line.message) ? line.message : undefined;
      if (line.type !== 'assistant' || !message || message.model === '<synthetic>' || !isRecord(message.usage))
        continue;
      const key = `${String(message.id)}:${String(line.requestId)}`;
      const usage = message.usage as Usage;
      const seen = responses.get(key);
      if (!seen || (usage.output_tokens ?? 0) >= (seen.usage.output_tokens ?? 0))
        responses.set(key, { tier: tierOf(message.model), usage });
    }
    const values = [...responses.values()];
    subagentUsage.set(agent[1], { tier: values[0]?.tier ?? null, usage: values.map((v) => v.usage) });
  }

  const costByTier: Record<Tier, number> = { haiku: 0, sonnet: 0, opus: 0 };
  for (const { tier, usage } of subagentUsage.values())
    if (tier) costByTier[tier] += usage.reduce((sum, u) => sum + cost(u, prices[tier]), 0);

  let prompts = 0;
  let hints = 0;
  let hintChars = 0;
  let spawnsAfterHint = 0;
  let followed = 0;
  let realised = 0;
  let missed = 0;
  let overhead = 0;
  for (const file of mainFiles) {
    let hinted: Tier | null = null;
    let mainTier: Tier = 'sonnet';
    /** Per spawn after a hint: the tier it ran on and the tier hinted. */
    const hintedSpawns = new Map<string, { ran: Tier; hint: Tier }>();
    for (const line of readLines(file)) {
      const message = isRecord(line.message) ? line.message : undefined;
      if (line.type === 'assistant' && message && tierOf(message.model)) mainTier = tierOf(message.model)!;
      if (
        line.type === 'user' &&
        message &&
        typeof message.content === 'string' &&
        !message.content.trimStart().startsWith('<')
      ) {
        prompts += 1;
        hinted = null;
      }
      if (
        line.type === 'attachment' &&
        isRecord(line.attachment) &&
        line.attachment.type === 'hook_additional_context'
      ) {
        const content = line.attachment.content;
        const text = Array.isArray(content) ? content.map(String).join('\n') : String(content ?? '');
        const match = HINT.exec(text);
        if (match) {
          hints += 1;
          hintChars += text.length;
          hinted = match[1] as Tier;
          // The hint sits in context for the rest of the turn: priced as input at the main model's tier.
          overhead += cost({ input_tokens: Math.ceil(text.length / 4) }, prices[mainTier]);
        }
      }
      if (line.type === 'assistant' && message && Array.isArray(message.content)) {
        for (const block of message.content) {
          if (
            isRecord(block) &&
            block.type === 'tool_use' &&
            (block.name === 'Agent' || block.name === 'Task') &&
            hinted
          ) {
            const input = isRecord(block.input) ? block.input : {};
            const ran = tierOf(input.model) ?? mainTier; // no model: the subagent inherits the orchestrator's
            spawnsAfterHint += 1;
            if (ran === hinted) followed += 1;
            hintedSpawns.set(String(block.id), { ran, hint: hinted });
          }
        }
      }
      if (
        line.type === 'user' &&
        isRecord(line.toolUseResult) &&
        typeof line.toolUseResult.agentId === 'string' &&
        message &&
        Array.isArray(message.content)
      ) {
        const result: unknown = message.content.find((b) => isRecord(b) && b.type === 'tool_result');
        const id = isRecord(result) ? String(result.tool_use_id) : '';
        const spawn = hintedSpawns.get(id);
        const usage = subagentUsage.get(line.toolUseResult.agentId)?.usage;
        if (!spawn || !usage) continue;
        const { ran, hint } = spawn;
        const at = (tier: Tier) => usage.reduce((sum, u) => sum + cost(u, prices[tier]), 0);
        if (ran === hint) realised += Math.max(0, at(mainTier) - at(hint));
        else missed += Math.max(0, at(ran) - at(hint));
      }
    }
  }
  const round = (usd: number) => Math.round(usd * 10_000) / 10_000;
  return {
    transcripts: mainFiles.length,
    subagent_transcripts: subagentUsage.size,
    prompts,
    hints,
    hint_rate: prompts ? hints / prompts : 0,
    spawns_after_hint: spawnsAfterHint,
    adherence: spawnsAfterHint ? followed / spawnsAfterHint : null,
    subagent_cost_usd_by_tier: {
      haiku: round(costByTier.haiku),
      sonnet: round(costByTier.sonnet),
      opus: round(costByTier.opus),
    },
    savings_usd: { realised: round(realised), missed: round(missed) },
    hint_overhead: { characters: hintChars, usd: round(overhead) },
  };
}
