import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { DocumentError, type DocumentFormat, type DocumentPage } from "../types";
import { parseDocument } from "./index";
import type { ParseJob, ParseReply } from "./worker";

export interface ParseRequest {
  file: string;
  format: DocumentFormat;
}

/**
 * The worker script: beside this file when running from source (tsx loads the .ts), else
 * the bundle esbuild writes beside the CLI and extension bundles.
 */
function workerScript(): string | undefined {
  const candidates = __filename.endsWith(".ts") ? [path.join(__dirname, "worker.ts")] : [path.join(__dirname, "document-parse-worker.js")];
  return candidates.find((f) => existsSync(f));
}

/** How many workers to start: one per core (RLENV_PARSE_THREADS overrides), never more than the files. */
export function parseThreads(files: number): number {
  const asked = Number(process.env.RLENV_PARSE_THREADS);
  const cores = Number.isInteger(asked) && asked > 0 ? asked : os.availableParallelism();
  return Math.max(1, Math.min(cores, files));
}

/**
 * Parse documents in worker threads, one per core; each result is the pages or the
 * DocumentError of that file, in the order asked. `onDone` is told after each file. A
 * single file, or no worker script (an unusual bundle), parses on this thread.
 */
export async function parseInWorkers(
  requests: ParseRequest[],
  onDone: (index: number) => void = () => {},
): Promise<Array<DocumentPage[] | DocumentError>> {
  const results: Array<DocumentPage[] | DocumentError> = new Array(requests.length);
  const script = workerScript();
  const threads = parseThreads(requests.length);
  if (!script || threads <= 1 || requests.length <= 1) {
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      try {
        results[i] = await parseDocument(new Uint8Array(readFileSync(r.file)), r.format, r.file);
      } catch (e) {
        results[i] = e instanceof DocumentError ? e : new DocumentError(r.file, (e as Error).message);
      }
      onDone(i);
    }
    return results;
  }
  // Biggest files first, so one large filing does not start last and leave the other cores idle.
  const queue = requests.map((_, i) => i).sort((a, b) => sizeOf(requests[b]!.file) - sizeOf(requests[a]!.file));
  const workers: Worker[] = [];
  try {
    await Promise.all(
      Array.from({ length: threads }, () => {
        const w = startWorker(script);
        workers.push(w);
        let online = false;
        w.once("online", () => {
          online = true;
        });
        return new Promise<void>((resolve) => {
          let current = -1;
          const feed = () => {
            const taken = queue.shift();
            if (taken === undefined) return resolve();
            current = taken;
            const r = requests[current]!;
            w.postMessage({ id: current, file: r.file, format: r.format } satisfies ParseJob);
          };
          w.on("message", (m: ParseReply) => {
            results[m.id] = "pages" in m ? m.pages : new DocumentError(m.file, m.error);
            onDone(m.id);
            feed();
          });
          // A worker that dies (out of memory in pdf.js) fails the file it held, not the corpus;
          // the files it would have taken go to the other workers.
          w.on("error", (e) => {
            // One that never started (a broken install) blames no file: this thread parses them.
            if (!online && current >= 0) queue.unshift(current);
            else if (current >= 0 && !results[current]) {
              results[current] = new DocumentError(requests[current]!.file, `the parser failed (${e.message})`);
              onDone(current);
            }
            resolve();
          });
          feed();
        });
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  // Files no worker finished (every worker died) are parsed here.
  for (let i = 0; i < requests.length; i++) {
    if (results[i]) continue;
    const r = requests[i]!;
    try {
      results[i] = await parseDocument(new Uint8Array(readFileSync(r.file)), r.format, r.file);
    } catch (e) {
      results[i] = e instanceof DocumentError ? e : new DocumentError(r.file, (e as Error).message);
    }
    onDone(i);
  }
  return results;
}

/**
 * A worker on `script`. From source (tests, tsx) the worker registers tsx first, since a
 * worker thread does not inherit the loader hooks of its parent.
 */
function startWorker(script: string): Worker {
  if (!script.endsWith(".ts")) return new Worker(script);
  const tsx = createRequire(__filename).resolve("tsx/cjs/api");
  return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(script)});`, { eval: true });
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
