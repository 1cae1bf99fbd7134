import * as vscode from "vscode";
import type { Environment } from "../../core/model/environment";
import type { ExtensionCtx } from "../context";
import { loadEngine, runsDirFor } from "./engine";

const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);

/**
 * "Calibrate the Reward Against Human Labels…": a labels file picked, whole replies or final
 * sentences, then the same calibration as `rlenv calibrate` (core/app), its run folder's
 * dashboard one click away. Returns the run folder, or undefined when the user backed out.
 */
export async function calibrateEnv(ctx: ExtensionCtx, env: Environment, signal: AbortSignal): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: `Labels for ${env.manifest.name} (JSONL: task, answer or trajectory, verdict)`,
    canSelectMany: false,
    filters: { "Labels (JSONL)": ["jsonl"] },
    defaultUri: vscode.Uri.file(env.dir),
  });
  const labels = picked?.[0]?.fsPath;
  if (!labels) return undefined;
  const mode = await vscode.window.showQuickPick(
    [
      { label: "Whole reply", final: false, description: "submit each label's whole answer" },
      { label: "Final sentence", final: true, description: "submit its final_answer, else its last sentence" },
    ],
    { title: "What to submit" },
  );
  if (!mode) return undefined;
  ctx.log.info(`calibrating ${env.manifest.name} against ${labels} (${mode.label.toLowerCase()})`);
  const { report, runDir, exitCode } = await loadEngine().calibrateEnvironment({
    env,
    labelsFile: labels,
    accept: { scoreAt: 1 },
    finalSentence: mode.final,
    runsDir: runsDirFor(ctx, env),
    signal,
  });
  for (const p of report.problems) ctx.log.warn(`${p.file}:${p.line}: ${p.field}: ${p.message}`);
  const o = report.overall;
  const summary = `${env.manifest.name}: false accepts ${pct(o.false_accept_rate.rate)} (${o.false_accept}/${o.false_accept_rate.n}), false rejects ${pct(o.false_reject_rate.rate)} (${o.false_reject}/${o.false_reject_rate.n}), κ ${o.kappa === null ? "–" : o.kappa.toFixed(3)}${exitCode === 2 ? ` — ${report.problems.length} bad labels (see the log)` : ""}`;
  const open = "Open Dashboard";
  void (exitCode === 2 ? vscode.window.showWarningMessage(summary, open) : vscode.window.showInformationMessage(summary, open)).then(
    (c) => {
      if (c === open && runDir) void vscode.commands.executeCommand("rlenv.openDashboard", runDir);
    },
  );
  return runDir ?? undefined;
}
