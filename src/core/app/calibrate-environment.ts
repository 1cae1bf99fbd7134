import { type CalibrateOptions, type CalibrateResult, calibrate } from "../calibrate/run-calibration";

export type CalibrateEnvironmentOptions = CalibrateOptions;

/**
 * `rlenv calibrate` and the editor's command: labelled answers through the environment's real
 * reward path, and how the reward agrees with the people who labelled them (calibration.json
 * in the run folder, which the run dashboard shows).
 */
export function calibrateEnvironment(opts: CalibrateEnvironmentOptions): Promise<CalibrateResult> {
  return calibrate(opts);
}
