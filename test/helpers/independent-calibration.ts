/**
 * Temperature scaling written out the way the literature (and the numpy/scipy reference vectors) writes it,
 * independently of src/calibration, so that tests compare the product against something it did not compute.
 */

export const softmax = (logits: readonly number[]): number[] => {
  const top = Math.max(...logits);
  const weights = logits.map((z) => Math.exp(z - top));
  const total = weights.reduce((s, w) => s + w, 0);
  return weights.map((w) => w / total);
};

/** softmax(log(max(p, floor)) / T): the reference clips at 1e-12, the product floors at 5e-5. */
export const scaled = (p: readonly number[], t: number, floor = 1e-12): number[] =>
  softmax(p.map((x) => Math.log(Math.max(x, floor)) / t));

/** The index of the largest probability, the first on ties. */
export const argmax = (p: readonly number[]): number => p.reduce((best, x, i) => (x > p[best] ? i : best), 0);

/** The maximum-likelihood temperature by ternary search over log T in [0.05, 20] (the log-likelihood is unimodal there). */
export function mlTemperature(
  probabilities: readonly (readonly number[])[],
  labels: readonly number[],
  floor = 1e-12,
): number {
  const nll = (t: number) =>
    probabilities.reduce((sum, p, i) => sum - Math.log(Math.max(scaled(p, t, floor)[labels[i]], floor)), 0);
  let [lo, hi] = [Math.log(0.05), Math.log(20)];
  for (let step = 0; step < 200; step++) {
    const a = lo + (hi - lo) / 3;
    const b = hi - (hi - lo) / 3;
    if (nll(Math.exp(a)) <= nll(Math.exp(b))) hi = b;
    else lo = a;
  }
  return Math.exp((lo + hi) / 2);
}

/**
 * The test fold of each row, as scikit-learn's StratifiedKFold(n_splits=k, shuffle=True) allocates them:
 * classes numbered in order of first appearance, the sorted class codes dealt to the folds in turn
 * (allocation[i] = bincount(y_order[i::k])), then each class's fold numbers shuffled over its rows.
 */
export function stratifiedKFold(labels: readonly (string | number)[], k: number, random: () => number): number[] {
  const classes = [...new Set(labels)];
  const encoded = labels.map((label) => classes.indexOf(label));
  const order = [...encoded].sort((a, b) => a - b);
  const allocation = Array.from({ length: k }, (_, fold) =>
    classes.map((_, c) => order.filter((code, i) => i % k === fold && code === c).length),
  );
  const folds = new Array<number>(labels.length);
  classes.forEach((_, c) => {
    const foldsForClass = allocation.flatMap((counts, fold) => Array<number>(counts[c]).fill(fold));
    for (let i = foldsForClass.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [foldsForClass[i], foldsForClass[j]] = [foldsForClass[j], foldsForClass[i]];
    }
    let next = 0;
    encoded.forEach((code, row) => code === c && (folds[row] = foldsForClass[next++]));
  });
  return folds;
}

/** ECE (10 equal-width bins), mean log loss and Brier score of probability rows against their labels. */
export function scores(probabilities: readonly (readonly number[])[], labels: readonly number[], floor = 1e-12) {
  const bins = Array.from({ length: 10 }, () => 0);
  let logLoss = 0;
  let brier = 0;
  probabilities.forEach((p, i) => {
    const choice = argmax(p);
    bins[Math.min(Math.floor(p[choice] * 10), 9)] += (choice === labels[i] ? 1 : 0) - p[choice];
    logLoss -= Math.log(Math.max(p[labels[i]], floor));
    brier += p.reduce((sum, x, j) => sum + (x - (j === labels[i] ? 1 : 0)) ** 2, 0);
  });
  const n = probabilities.length;
  return { ece: bins.reduce((sum, gap) => sum + Math.abs(gap), 0) / n, logLoss: logLoss / n, brier: brier / n };
}

/**
 * Held-out figures of temperature scaling by stratified k-fold cross-validation: each row scaled by the
 * maximum-likelihood temperature of the other folds, the scores taken over all rows so predicted.
 */
export function heldOutScores(
  probabilities: readonly (readonly number[])[],
  labels: readonly number[],
  random: () => number,
  k = 5,
  floor = 1e-12,
) {
  const folds = stratifiedKFold(labels, k, random);
  const predicted = new Array<number[]>(labels.length);
  for (let fold = 0; fold < k; fold++) {
    const train = labels.map((_, i) => i).filter((i) => folds[i] !== fold);
    const t = mlTemperature(
      train.map((i) => probabilities[i]),
      train.map((i) => labels[i]),
      floor,
    );
    labels.forEach((_, i) => folds[i] === fold && (predicted[i] = scaled(probabilities[i], t, floor)));
  }
  return scores(predicted, labels, floor);
}

/**
 * Each row's choice after temperature scaling by the maximum-likelihood temperature of the other folds (stratified
 * k-fold as above): its confidence, and whether it is the label. What a decision would see, held out.
 */
export function heldOutChoices(
  probabilities: readonly (readonly number[])[],
  labels: readonly number[],
  random: () => number,
  k = 5,
  floor = 1e-12,
): { confidence: number; correct: boolean }[] {
  const folds = stratifiedKFold(labels, k, random);
  const temperatures = Array.from({ length: k }, (_, fold) => {
    const train = labels.map((_, i) => i).filter((i) => folds[i] !== fold);
    return mlTemperature(
      train.map((i) => probabilities[i]),
      train.map((i) => labels[i]),
      floor,
    );
  });
  return probabilities.map((p, i) => {
    const calibrated = scaled(p, temperatures[folds[i]], floor);
    return { confidence: calibrated[argmax(calibrated)], correct: argmax(calibrated) === labels[i] };
  });
}
