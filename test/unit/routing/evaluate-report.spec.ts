/** The figures `system1 evaluate` reports, against values worked out by hand. */
import {
  featureFigures,
  featureGuarantees,
  type JudgedSpawn,
  readinessReasons,
  ruleSafety,
  savings,
  weakPart,
} from '../../../src/routing/evaluate-report';

const answer = (value: boolean, confidence: number) => ({ answer: value, confidence });

describe('featureFigures', () => {
  // read_only on five prompts, threshold 0.6:
  //   label  answer  confidence  right?  decided?
  //   yes    yes     0.90        yes     yes
  //   yes    no      0.70        no      yes
  //   no     no      0.80        yes     yes
  //   no     yes     0.55        no      no (below 0.6)
  //   yes    yes     0.65        yes     yes
  // accuracy at 0.6: 3 right of 4 decided = 0.75; coverage 4 of 5 = 0.8.
  // AUROC: right {0.90, 0.80, 0.65} against wrong {0.70, 0.55}: 0.90 and 0.80 beat both (4 pairs), 0.65 beats
  // 0.55 only (1 pair): 5 of 6 pairs.
  const readings = [
    { labels: { read_only: true }, answers: { read_only: answer(true, 0.9) } },
    { labels: { read_only: true }, answers: { read_only: answer(false, 0.7) } },
    { labels: { read_only: false }, answers: { read_only: answer(false, 0.8) } },
    { labels: { read_only: false }, answers: { read_only: answer(true, 0.55) } },
    { labels: { read_only: true }, answers: { read_only: answer(true, 0.65) } },
    // Not counted: no answer from the engine, no label, a label that is not yes/no, an answer that is not one.
    { labels: { read_only: true }, answers: null },
    { labels: {}, answers: { read_only: answer(true, 0.9) } },
    { labels: { read_only: 'yes' }, answers: { read_only: answer(true, 0.9) } },
    { labels: { read_only: true }, answers: { read_only: { answer: 'yes', confidence: 0.9 } as never } },
  ];

  it('gives n, coverage and accuracy at the threshold, and AUROC over every answer', () => {
    const figures = featureFigures(readings, 0.6);
    expect(figures.read_only).toEqual({ n: 5, coverage: 0.8, accuracy: 0.75, auroc: 5 / 6 });
  });

  it('has no accuracy when nothing reaches the threshold, and no AUROC when every answer is right', () => {
    expect(featureFigures(readings, 0.95).read_only).toMatchObject({ n: 5, coverage: 0, accuracy: null });
    const allRight = featureFigures([{ labels: { design: true }, answers: { design: answer(true, 0.9) } }], 0.6);
    expect(allRight.design).toEqual({ n: 1, coverage: 1, accuracy: 1, auroc: null });
    expect(allRight.review).toEqual({ n: 0, coverage: 0, accuracy: null, auroc: null });
  });
});

describe('the rule on outcome-labelled spawns', () => {
  const judged: JudgedSpawn[] = [
    { failed: true, ran: 'haiku', byEngine: 'sonnet', byLabels: 'opus' }, // both above: safe
    { failed: true, ran: 'sonnet', byEngine: 'haiku', byLabels: 'opus' }, // the engine's tier below: unsafe; the labels': safe
    { failed: true, ran: 'sonnet', byEngine: 'sonnet', byLabels: 'sonnet' }, // the tier that failed again: unsafe for both
    { failed: true, ran: 'haiku', byEngine: null, byLabels: 'sonnet' }, // no engine answer: counted for the labels only
    { failed: false, ran: 'opus', byEngine: 'haiku', byLabels: 'haiku' }, // a cheaper tier suggested
    { failed: false, ran: 'haiku', byEngine: 'haiku', byLabels: 'haiku' },
    { failed: false, ran: 'sonnet', byEngine: null, byLabels: 'haiku' },
  ];

  it("is safe on the share of failures where it picks a higher tier: 1 of 3 with the engine's answers, 3 of 4 with the labels", () => {
    expect(ruleSafety(judged, 'byEngine')).toBeCloseTo(1 / 3, 12);
    expect(ruleSafety(judged, 'byLabels')).toBe(0.75);
    expect(
      ruleSafety(
        judged.filter((j) => !j.failed),
        'byEngine',
      ),
    ).toBeNull();
  });

  it('counts the successful spawns where the engine would have saved a tier', () => {
    expect(savings(judged)).toEqual({ successful_spawns: 3, cheaper_tier_suggested: 1 });
  });

  it('tells a weak rule from a weak engine', () => {
    expect(weakPart(0.5, 0.75, 0.95)).toBe('rule'); // unsafe even with the teacher's labels
    expect(weakPart(0.5, 1, 0.95)).toBe('engine'); // safe with the labels, not with the engine's answers
    expect(weakPart(0.96, 0.5, 0.95)).toBeNull(); // safe with the engine's answers: nothing to fix for routing
    expect(weakPart(null, 0.5, 0.95)).toBeNull();
    expect(weakPart(0.5, null, 0.95)).toBeNull();
  });
});

describe('readinessReasons', () => {
  const bars = { minFeatureAccuracy: 0.85, minSafety: 0.95, minFailures: 30, threshold: 0.6 };
  const good = { n: 40, coverage: 1, accuracy: 0.9, auroc: 0.8 };
  const features = {
    read_only: good,
    design: { ...good, accuracy: 0.6 },
    review: { ...good, accuracy: null },
    specified: good,
  };

  it('gives one reason per bar missed, and names the weak part of an unsafe rule', () => {
    expect(readinessReasons({ features, failures: 12, safety_with_engine: 0.9, safety_with_labels: 1 }, bars)).toEqual([
      'design: accuracy 0.60 at 0.6 is below 0.85',
      'review: accuracy unknown at 0.6 is below 0.85',
      "the rule's safety with the engine's answers is 0.90, below 0.95 (1.00 with the teacher's labels: the engine is the weak part, not the rule)",
      'only 12 failed spawns are labelled (30 needed)',
    ]);
    const weakRule = readinessReasons(
      {
        features: { ...features, design: good, review: good },
        failures: 30,
        safety_with_engine: 0.8,
        safety_with_labels: 0.7,
      },
      bars,
    );
    expect(weakRule).toEqual([
      "the rule's safety with the engine's answers is 0.80, below 0.95 (0.70 even with the teacher's labels: the rule is the weak part, not the engine)",
    ]);
  });

  it('has none when every bar is met', () => {
    expect(
      readinessReasons(
        {
          features: { read_only: good, design: good, review: good, specified: good },
          failures: 30,
          safety_with_engine: 0.95,
          safety_with_labels: 0.5,
        },
        bars,
      ),
    ).toEqual([]);
  });
});

describe('featureGuarantees', () => {
  it('per feature, the threshold with a guarantee of the accuracy bar on the confidences the log holds', () => {
    // read_only: 30 right at 0.95, then 10 wrong at 0.6. 0.85^19 is the first power under 0.05, so every
    // threshold from 0.95 down to 0.61 keeps 30 right answers and is rejected; at 0.60 the 10 wrong stop it.
    // design: 10 right answers only, too few at any threshold: 9 more at no error would do (0.85^19).
    const readings = [
      ...Array.from({ length: 30 }, (_, i) => ({
        labels: { read_only: true, design: i < 10 },
        answers: { read_only: answer(true, 0.95), ...(i < 10 && { design: answer(true, 0.9) }) },
      })),
      ...Array.from({ length: 10 }, () => ({
        labels: { read_only: true },
        answers: { read_only: answer(false, 0.6) },
      })),
    ];
    const guarantees = featureGuarantees(readings, { minFeatureAccuracy: 0.85, risk: 0.05 });
    expect(guarantees.read_only).toEqual({
      guaranteed_threshold: {
        threshold: 0.61,
        coverage: 0.75,
        n: 30,
        errors: 0,
        p_value: expect.any(Number),
        target_accuracy: 0.85,
        risk: 0.05,
      },
      answers_needed: null,
    });
    expect(guarantees.read_only.guaranteed_threshold!.p_value).toBeCloseTo(0.85 ** 30, 12);
    expect(guarantees.design).toEqual({ guaranteed_threshold: null, answers_needed: 9 });
    expect(guarantees.review).toEqual({ guaranteed_threshold: null, answers_needed: null });
  });
});
