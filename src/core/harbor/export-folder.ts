import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { executablePaths, sandboxFiles } from "../model/file-content";
import type { FileMap } from "../schema/common";

/** Where an exported task's agent leaves its answer: Harbor has no submit step, so the answer graders read this file. */
export const ANSWER_FILE = "/logs/agent/answer.json";

/** Writes a file of one exported task's folder; the task's file maps; its warnings. */
export interface TaskFolder {
  write(rel: string, bytes: Buffer | string, executable?: boolean): void;
  writeMap(prefix: string, map: FileMap | undefined): void;
  warn(message: string): void;
}

/** The exported task folder `dir`: files written under it (parents made), warnings passed to `warn`. */
export function openTaskFolder(dir: string, warn: (message: string) => void): TaskFolder {
  const write = (rel: string, bytes: Buffer | string, executable = false) => {
    const to = path.join(dir, rel);
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, bytes);
    if (executable) chmodSync(to, 0o755);
  };
  /** A task's file map under `prefix`, its executable files with their mode. */
  const writeMap = (prefix: string, map: FileMap | undefined) => {
    const executable = new Set(executablePaths(map));
    for (const [p, c] of Object.entries(sandboxFiles(map))) write(`${prefix}${p}`, c, executable.has(p));
  };
  return { write, writeMap, warn };
}

/** A bash script of `lines`. */
export function sh(lines: string[]): string {
  return `#!/bin/bash\n${lines.join("\n")}\n`;
}
