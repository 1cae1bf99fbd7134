// A parse worker: reads a document file and returns its pages. One runs per core while a
// corpus is indexed; bundled as dist/document-parse-worker.js (esbuild.mjs).
import { readFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { DocumentError, type DocumentFormat } from "../types";
import { parseDocument } from "./index";

export interface ParseJob {
  id: number;
  file: string;
  format: DocumentFormat;
}

export type ParseReply = { id: number; pages: Array<{ number: number; text: string }> } | { id: number; error: string; file: string };

parentPort?.on("message", async (job: ParseJob) => {
  try {
    const pages = await parseDocument(new Uint8Array(readFileSync(job.file)), job.format, job.file);
    parentPort?.postMessage({ id: job.id, pages } satisfies ParseReply);
  } catch (e) {
    const reason = e instanceof DocumentError ? e.reason : (e as Error).message;
    parentPort?.postMessage({ id: job.id, error: reason, file: job.file } satisfies ParseReply);
  }
});
