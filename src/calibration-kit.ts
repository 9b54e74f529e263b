/**
 * The calibration kit (`system1-gateway/calibration`): the maths `system1 calibrate` reports, for anyone's
 * labelled data, without the gateway (loading it starts no Nest and no engine). `guaranteedThreshold` picks a
 * `min_confidence` with a stated guarantee; docs/calibration.md says what it means and what it does not.
 *
 * @example
 * const { guaranteedThreshold } = require('system1-gateway/calibration');
 * guaranteedThreshold(confidences, correct, { targetAccuracy: 0.9, risk: 0.05 });
 * // { threshold: 0.79, coverage: 0.7525, n: 301, errors: 21, p_value: 0.0441, target_accuracy: 0.9, risk: 0.05 }
 */
export {
  answersNeeded,
  binomialCdf,
  DEFAULT_RISK,
  GUARANTEE_GRID,
  guaranteedThreshold,
  thresholdGuarantee,
} from './calibration/guaranteed-threshold';
export type { GuaranteedThreshold, GuaranteeOptions, ThresholdGuarantee } from './calibration/guaranteed-threshold';
export {
  accuracy,
  auroc,
  bootstrapInterval,
  brierScore,
  eceNoiseFloor,
  expectedCalibrationError,
  heldOutPredictions,
  meanLogLoss,
  predict,
  recommendThreshold,
  reliabilityBins,
  scorePrediction,
  thresholdTable,
  THRESHOLDS,
} from './calibration/calibration-metrics';
export type { Prediction, ScoredPrediction, ThresholdRow } from './calibration/calibration-metrics';
export { fitTemperature, logLoss } from './calibration/fit';
export type { LabelledAnswer, TemperatureFit } from './calibration/fit';
export { scaleProbabilities } from './calibration/temperature';
