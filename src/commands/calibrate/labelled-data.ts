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
  /** The label as written, when it named its option only up to case or surrounding spaces ("Yes" for "yes"). */
  looseLabel?: string;
}

export interface LineProblem {
  line: number;
  problem: string;
}

/**
 * Reads labelled decisions. A line that is not JSON, not a valid request (the same rules as
 * `system1_decide`) or whose label is not one of its options is reported with its number and skipped.
 * A label names its option exactly; one that matches no option exactly but exactly one up to case and
 * surrounding spaces is taken for it (and flagged), and one that matches two that way is ambiguous.
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

/** One note for every label read only up to case or spaces (said once, not per line), or undefined. */
export function looseLabelNote(examples: readonly LabelledExample[]): string | undefined {
  const loose = examples.filter((example) => example.looseLabel !== undefined);
  if (loose.length === 0) return undefined;
  const { line, looseLabel, options, label } = loose[0];
  return (
    `${loose.length} labels match an option only up to case or spaces and were read as it ` +
    `(the first, line ${line}: ${JSON.stringify(looseLabel)} as ${JSON.stringify(options[label])}); ` +
    'write labels exactly as their option'
  );
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
  const example = { question: check.request.question, options, yesNo, context: check.request.context };
  const exact = options.indexOf(label);
  if (exact >= 0) return { ...example, label: exact };
  const loose = options.flatMap((option, index) => (looseForm(option) === looseForm(label) ? [index] : []));
  if (loose.length === 1) return { ...example, label: loose[0], looseLabel: label };
  if (loose.length > 1) {
    const named = loose.map((index) => JSON.stringify(options[index])).join(' and ');
    return (
      `label ${JSON.stringify(label)} is ambiguous: it matches ${named} only up to case or spaces; ` +
      'write it exactly as one option'
    );
  }
  return `label ${JSON.stringify(label)} is not one of the options (${options.join(', ')})`;
}

const looseForm = (text: string) => text.trim().toLowerCase();
