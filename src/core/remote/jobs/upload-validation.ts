import { existsSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { Problem } from "../../model/problem";

/** What a submit needs of an uploaded environment that loads, or its problems (files relative to it). */
export type UploadValidation =
  | { ok: true; env: { name: string; hash: string; domain: string; taskIds: string[] } }
  | { ok: false; problems: Problem[] };

/** A validation that takes longer than this is given up (the loader's caps keep real ones far below). */
export const UPLOAD_VALIDATION_TIMEOUT_MS = 120_000;

/**
 * The worker's entry: beside the bundle in dist/ (esbuild builds validate-worker.js as its own
 * entry), else the TypeScript source run through tsx's require hook (tests, `tsx src/cli/main.ts`).
 */
function workerScript(): { script: string; eval: boolean } {
  const bundled = path.join(__dirname, "validate-worker.js");
  if (existsSync(bundled)) return { script: bundled, eval: false };
  const source = path.join(__dirname, "validate-worker.ts");
  return { script: `require("tsx/cjs"); require(${JSON.stringify(source)});`, eval: true };
}

/**
 * Loads an uploaded environment in a worker thread, so that a big or hostile bundle (a
 * megabyte of broken lines takes seconds) never stalls the runner's other requests. A
 * worker that crashes or runs past the timeout answers as a problem of the upload.
 */
export function validateUpload(envDir: string, timeoutMs = UPLOAD_VALIDATION_TIMEOUT_MS): Promise<UploadValidation> {
  const { script, eval: isEval } = workerScript();
  const worker = new Worker(script, { eval: isEval, workerData: { envDir }, resourceLimits: { maxOldGenerationSizeMb: 2048 } });
  const refuse = (message: string): UploadValidation => ({
    ok: false,
    problems: [{ file: "environment.yaml", line: 1, column: 1, endLine: 1, endColumn: 1, path: "", message, severity: "error" }],
  });
  return new Promise<UploadValidation>((resolve) => {
    let settled = false;
    const settle = (v: UploadValidation) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(refuse(`validating the environment took longer than ${timeoutMs / 1000} s: refused`)), timeoutMs);
    worker.once("message", (m: UploadValidation) => settle(m));
    worker.once("error", (e) => settle(refuse(`internal error while validating the environment: ${e.message}`)));
    worker.once("exit", (code) => settle(refuse(`the validation worker exited (code ${code}) without an answer`)));
  });
}
