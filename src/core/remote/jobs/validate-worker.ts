import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { loadEnvironment } from "../../environment/load-environment";
import type { UploadValidation } from "./upload-validation";

/**
 * Worker thread entry (its own bundle, dist/validate-worker.js): loads an uploaded
 * environment away from the runner's event loop and posts what the submit needs, or the
 * problems with paths relative to the environment folder.
 */
const { envDir } = workerData as { envDir: string };
let answer: UploadValidation;
try {
  const { env, problems } = loadEnvironment(envDir);
  const errors = problems.filter((p) => p.severity === "error");
  answer =
    env && errors.length === 0
      ? { ok: true, env: { name: env.manifest.name, hash: env.hash, domain: env.manifest.domain, taskIds: env.tasks.map((t) => t.id) } }
      : {
          ok: false,
          problems: (errors.length > 0 ? errors : problems).map((p) => ({
            ...p,
            file: path.relative(envDir, p.file) || path.basename(p.file),
          })),
        };
} catch (e) {
  answer = {
    ok: false,
    problems: [
      {
        file: "environment.yaml",
        line: 1,
        column: 1,
        endLine: 1,
        endColumn: 1,
        path: "",
        message: `internal error while validating the environment: ${(e as Error).message}`,
        severity: "error",
      },
    ],
  };
}
parentPort?.postMessage(answer);
