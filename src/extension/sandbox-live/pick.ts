import * as vscode from "vscode";
import type { LiveRollout, LiveRollouts } from "../debug/live-rollouts";

/**
 * The rollout a sandbox command acts on: the given id, else the active debug session's,
 * else the only one, else a pick. Tells the user plainly when none is live.
 */
export async function pickLiveRollout(live: LiveRollouts, id?: string): Promise<LiveRollout | undefined> {
  const all = live.all();
  if (id) {
    const hit = all.find((r) => r.id === id);
    if (!hit) void vscode.window.showWarningMessage(`That rollout is no longer being debugged: its sandbox is closed.`);
    return hit;
  }
  const current = live.current();
  if (current) return current;
  if (all.length === 0) {
    void vscode.window.showInformationMessage(
      "No rollout is being debugged, so there is no live sandbox. Start one with Debug on a task (CodeLens or the Environments view), then open its sandbox while it is paused.",
    );
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    all.map((r) => ({ label: r.label, rollout: r })),
    { placeHolder: "Which debugged rollout's sandbox?" },
  );
  return pick?.rollout;
}
