import { readFileSync } from 'node:fs';
import { isRecord } from '../../common/is-record';
import { YES_NO_OPTIONS } from '../../common/limits';
import { checkDecideRequest } from '../../mcp/decide/request-validation';

/** One labelled decision from a DATA.jsonl line: `{"question", "options", "context", "label"}`. */
export interface LabelledExample {
  line: number;
  question: string;
  options: string[];
  yesNo: boolean;
  context?: Record<string, unknown>;
  /** Index of the right option. */
  label: number;
}

export interface LineProblem {
  line: number;
  problem: string;
}

/**
 * Reads labelled decisions. A line that is not JSON, not a valid request (the same rules as
 * `system1_decide`) or whose label is not one of its options is reported with its number and skipped.
 */
export function readLabelledData(file: string): { examples: LabelledExample[]; problems: LineProblem[] } {
  const examples: LabelledExample[] = [];
  const problems: LineProblem[] = [];
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .forEach((text, index) => {
      const line = index + 1;
      if (text.trim() === '') return;
      const parsed = parseLine(text);
      if (typeof parsed === 'string') problems.push({ line, problem: parsed });
      else examples.push({ line, ...parsed });
    });
  return { examples, problems };
}

function parseLine(text: string): Omit<LabelledExample, 'line'> | string {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (!isRecord(row)) return 'not a JSON object';
  const { label, reason: _reason, ...request } = row;
  const check = checkDecideRequest(request);
  if (!check.ok) return check.message.replace(/^invalid request: /, '');
  const yesNo = check.request.options === undefined;
  const options = yesNo ? [...YES_NO_OPTIONS] : check.request.options!;
  if (typeof label !== 'string') return 'label must be a string, one of the options';
  const index = options.findIndex((option) => option.toLowerCase() === label.trim().toLowerCase());
  if (index < 0) return `label ${JSON.stringify(label)} is not one of the options (${options.join(', ')})`;
  return { question: check.request.question, options, yesNo, context: check.request.context, label: index };
}
