import { parentPort, workerData } from "node:worker_threads";
import { loadEnvironment } from "../../../src/core/environment/load-environment";
import type { LoadLimits } from "../../../src/core/util/read-source";

/** Loads one environment in a worker thread, so that the test can time out a loader that hangs or spins. */
const { dir, limits } = workerData as { dir: string; limits?: Partial<LoadLimits> };
const r = loadEnvironment(dir, { limits });
parentPort?.postMessage({ loaded: r.env !== null, problems: r.problems });
