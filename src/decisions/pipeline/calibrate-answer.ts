import { type CalibrationService } from '../../calibration/calibration.service';
import { choiceAnswer, noulAnswer, scoreAnswer } from './answer-reader';
import { render } from './question-text';
import { type Answer, type Question } from '../questions/question.types';

/**
 * Rescales a typed answer with the fit that matches its engine, model and question (the same fits the MCP
 * tool uses: by question text, else by option count). A yes/no answer is rescaled as the two options yes
 * and no, a score as its levels. Box answers carry no distribution and stay as they are.
 */
export function calibrateAnswer(
  calibration: CalibrationService,
  provider: string,
  model: string | null | undefined,
  question: Question,
  answer: Answer,
): Answer {
  const text = render(question.instructions);
  const scale = (options: string[], decision: string, probabilities: Record<string, number>) =>
    calibration.apply(
      provider,
      model,
      { text, options },
      { decision, confidence: probabilities[decision], probabilities },
    );
  switch (answer.type) {
    case 'choice': {
      const scaled = scale(Object.keys(answer.probabilities), answer.value, answer.probabilities);
      return scaled.calibrated && scaled.probabilities ? choiceAnswer(scaled.probabilities, undefined, true) : answer;
    }
    case 'noul': {
      const p = answer.probabilityTrue;
      const scaled = scale(['yes', 'no'], p >= 0.5 ? 'yes' : 'no', { yes: p, no: 1 - p });
      return scaled.calibrated && scaled.probabilities ? noulAnswer(scaled.probabilities.yes, true) : answer;
    }
    case 'score': {
      const levels = answer.distribution.map((_, level) => String(level));
      const scaled = scale(
        levels,
        String(answer.level),
        Object.fromEntries(answer.distribution.map((p, level) => [String(level), p])),
      );
      return scaled.calibrated && scaled.probabilities
        ? scoreAnswer(
            levels.map((level) => scaled.probabilities![level]),
            undefined,
            true,
          )
        : answer;
    }
    case 'box':
      return answer;
  }
}
