import { formatObservationLine, formatRolloutEndLine } from "../../core/remote/progress-line";
import { onObservation } from "../../core/util/observations";
import type { RunProgress } from "../../core/rollout/run-environment";

const fmtTime = (s: number | null) => {
  if (s === null || !Number.isFinite(s)) return "--:--";
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.round(s % 60)).padStart(2, "0")}`;
};
const fmtReward = (r: number | null) => (r === null ? "-" : r.toFixed(3));

/** Why a rollout fell short, for its line: the failing components with their reasons, else the end reason. */
function failureNote(e: Extract<RunProgress, { type: "rollout-end" }>): string {
  if (e.failure) return ` — ${e.failure}`;
  return e.reason && e.status !== "completed" ? ` (${e.reason})` : "";
}

/**
 * Progress for `rlenv run`: a live bar rewritten in place on a terminal, plain lines
 * (one per finished rollout) when stderr is a file or a pipe; with `jsonl` each rollout
 * end is a machine line for the runner instead (see core/remote/progress-line.ts).
 */
export function progressPrinter(
  stream: NodeJS.WriteStream,
  quiet = false,
  jsonl = false,
): { onProgress: (e: RunProgress) => void; finish: () => void } {
  const tty = stream.isTTY === true;
  let bar = "";
  // Machine lines leave in batches of up to 20 ms: a write per rollout would wake the
  // runner a thousand times for a thousand quick rollouts. A line lost to a crash is no
  // loss: the runner scans the files once the run has ended.
  let jsonlLines: string[] = [];
  let jsonlTimer: NodeJS.Timeout | undefined;
  const flushJsonl = () => {
    if (jsonlTimer) clearTimeout(jsonlTimer);
    jsonlTimer = undefined;
    if (jsonlLines.length > 0) stream.write(`${jsonlLines.join("\n")}\n`);
    jsonlLines = [];
  };
  const pushJsonl = (line: string) => {
    jsonlLines.push(line);
    jsonlTimer ??= setTimeout(flushJsonl, 20);
  };
  // The runner's metrics: sandbox starts and policy requests, measured where they happen.
  const stopObserving = jsonl ? onObservation((o) => pushJsonl(formatObservationLine(o))) : undefined;
  const clear = () => {
    if (tty && bar) stream.write("\r\x1b[2K");
  };
  const redraw = () => {
    if (tty && bar) stream.write(bar);
  };
  return {
    onProgress(e) {
      if (e.type === "log") {
        clear();
        stream.write(`${e.level === "info" ? "" : `${e.level}: `}${e.message}\n`);
        redraw();
      } else if (e.type === "rollout-start") {
        // A retry of a rollout the machinery failed is the same rollout still in flight.
        if (jsonl && e.attempt === 1) pushJsonl(formatObservationLine({ kind: "rollout-start" }));
      } else if (e.type === "rollout-end") {
        if (jsonl) pushJsonl(formatRolloutEndLine(e));
        else if (!tty && !quiet)
          stream.write(`${e.status.padEnd(9)} reward=${fmtReward(e.reward)} ${e.task} #${e.sample}${failureNote(e)}\n`);
        else if (tty && e.status === "error") {
          clear();
          stream.write(`error: ${e.task} #${e.sample}: ${e.failure ?? e.reason ?? ""}\n`);
          redraw();
        }
      } else if (e.type === "progress") {
        if (tty) {
          const width = 24;
          const filled = e.total === 0 ? width : Math.round((e.done / e.total) * width);
          bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${e.done}/${e.total}  mean reward ${fmtReward(e.meanReward)}  ${e.rate.toFixed(2)}/s  ETA ${fmtTime(e.eta)}  policy ${e.policyInFlight} in flight`;
          stream.write(`\r\x1b[2K${bar}`);
        }
      }
    },
    finish() {
      stopObserving?.();
      flushJsonl();
      if (tty && bar) stream.write("\n");
      bar = "";
    },
  };
}
