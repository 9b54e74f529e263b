import { isRecord } from '../../common/is-record';
import { YES_NO_OPTIONS } from '../../common/limits';
import { FILE_CAPS, readRegularFileSync } from '../../common/regular-file';
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
 * A file that is not a regular one (a FIFO would wait for a writer forever) or is over the cap throws.
 */
export function readLabelledData(file: string): { examples: LabelledExample[]; problems: LineProblem[] } {
  const examples: LabelledExample[] = [];
  const problems: LineProblem[] = [];
  readRegularFileSync(file, FILE_CAPS.data)
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
