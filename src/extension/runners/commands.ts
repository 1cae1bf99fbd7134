import path from "node:path";
import * as vscode from "vscode";
import { submitJob } from "../../core/app/submit-job";
import { checkRunnerToken, type TokenCheck } from "../../core/remote/client/token-check";
import type { CommandSpec } from "../commands/table";
import type { RunnerRegistry } from "./registry";
import type { RunnerNode, RunnersTree } from "./tree";

/** Arguments the commands accept from code (tests, other features) instead of asking. */
export interface SubmitArgs {
  envDir: string;
  runner?: string;
  policy?: "oracle" | "nop" | "openai";
  model?: string;
  baseUrl?: string;
  executor?: "local" | "slurm";
  k?: number;
  concurrency?: number;
  sandbox?: "docker" | "process" | "auto";
  slurm?: { shards?: number; gpus_per_shard?: number };
}
export interface JobArgs {
  runner: string;
  jobId: string;
}

function jobArgs(arg: unknown): JobArgs | undefined {
  const a = arg as Partial<JobArgs & RunnerNode> | undefined;
  if (a?.kind === "job" && a.runner && a.job) return { runner: a.runner, jobId: a.job.id };
  if (typeof a?.runner === "string" && typeof a?.jobId === "string") return { runner: a.runner, jobId: a.jobId };
  return undefined;
}

async function pickRunner(registry: RunnerRegistry, given?: string): Promise<string | undefined> {
  if (given) return given;
  const runners = registry.list();
  if (runners.length === 0) {
    void vscode.window.showWarningMessage('No runners yet: add one with "RL Env Studio: Add Runner…".');
    return undefined;
  }
  if (runners.length === 1) return runners[0]?.name;
  return (await vscode.window.showQuickPick(runners.map((r) => ({ label: r.name, description: r.url }))))?.label;
}

async function pickEnvironment(arg: unknown): Promise<string | undefined> {
  if (arg instanceof vscode.Uri) return arg.fsPath.endsWith("environment.yaml") ? path.dirname(arg.fsPath) : arg.fsPath;
  const given = (arg as { envDir?: string } | undefined)?.envDir;
  if (given) return given;
  const manifests = await vscode.workspace.findFiles("**/environment.yaml", "**/node_modules/**", 200);
  const picked = await vscode.window.showQuickPick(
    manifests.map((u) => ({
      label: path.basename(path.dirname(u.fsPath)),
      description: vscode.workspace.asRelativePath(path.dirname(u.fsPath)),
      dir: path.dirname(u.fsPath),
    })),
    { placeHolder: "Environment to submit" },
  );
  return picked?.dir;
}

/** What the runner commands work with. */
interface RunnerDeps {
  registry: RunnerRegistry;
  tree: RunnersTree;
  log: vscode.LogOutputChannel;
  runsDir: () => vscode.Uri | undefined;
}

async function addRunner({ registry, tree }: RunnerDeps, arg?: { name: string; url: string; token: string }) {
  const name = arg?.name ?? (await vscode.window.showInputBox({ prompt: "Runner name", placeHolder: "gpu-box" }));
  if (!name) return false;
  const url = arg?.url ?? (await vscode.window.showInputBox({ prompt: "Runner URL", placeHolder: "https://gpu-box:7800" }));
  if (!url) return false;
  const token =
    arg?.token ?? (await vscode.window.showInputBox({ prompt: `Token of ${name} (rlenv runner token on that host)`, password: true }));
  if (!token) return false;
  if (!(await runnerTakesToken(name, url, token, arg === undefined))) return false;
  await registry.add(name, url, token);
  await tree.refreshRunner(name);
  return true;
}

/** What a runner's answer to a token means for the person adding it. */
const TOKEN_PROBLEM: Record<Extract<TokenCheck, { ok: false }>["reason"], string> = {
  "wrong-token": "refused the token: take it from `rlenv runner token` on that host",
  unreachable: "could not be reached",
  "untrusted-certificate": "has a certificate this machine does not trust (add the runner with `rlenv runner add NAME URL --ca FILE`)",
  "not-a-runner": "is not an rlenv runner, or not this version's",
};

/**
 * Asks the runner whether it takes the token (GET /v1/status), as `rlenv runner add --token` does, so a
 * mistyped token is found now rather than at the first submit. Nothing is saved when it does not; a
 * person may still save for a runner that is down now (asked from the palette only: code gets false).
 */
async function runnerTakesToken(name: string, url: string, token: string, interactive: boolean): Promise<boolean> {
  const check = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Checking the token with runner ${name}…` },
    () => checkRunnerToken({ url }, token),
  );
  if (check.ok) return true;
  const message = `Runner ${name} (${url}) ${TOKEN_PROBLEM[check.reason]} (${check.detail}). Nothing was saved.`;
  if (check.reason === "unreachable" && interactive) {
    const pick = await vscode.window.showWarningMessage(message, "Save Anyway");
    return pick === "Save Anyway";
  }
  void vscode.window.showErrorMessage(message);
  return false;
}

async function removeRunner({ registry }: RunnerDeps, arg?: RunnerNode) {
  const name = (arg && "runner" in arg ? arg.runner : undefined) ?? (await pickRunner(registry));
  if (name) await registry.remove(name);
}

/** The job request of a submit: the arguments given, else the workspace's settings. */
function submitRequest(a: Partial<SubmitArgs>, policy: NonNullable<SubmitArgs["policy"]>) {
  const cfg = vscode.workspace.getConfiguration("rlenv");
  return {
    executor: a.executor ?? "local",
    policy,
    ...(policy === "openai"
      ? { model: a.model ?? cfg.get<string>("policy.model", ""), baseUrl: a.baseUrl ?? cfg.get<string>("policy.baseUrl", "") }
      : {}),
    k: a.k ?? cfg.get<number>("rollout.samples", 1),
    concurrency: a.concurrency ?? 4,
    sandbox: a.sandbox ?? cfg.get<"auto" | "docker" | "process">("sandbox.backend", "auto"),
    ...(a.slurm
      ? {
          slurm: {
            ...(a.slurm.shards ? { shards: a.slurm.shards } : {}),
            ...(a.slurm.gpus_per_shard !== undefined ? { gpus: a.slurm.gpus_per_shard } : {}),
          },
        }
      : {}),
  } as const;
}

async function submit({ registry, tree, log }: RunnerDeps, arg?: unknown): Promise<string | undefined> {
  const envDir = await pickEnvironment(arg);
  if (!envDir) return undefined;
  const a = (arg && !(arg instanceof vscode.Uri) ? (arg as Partial<SubmitArgs>) : {}) as Partial<SubmitArgs>;
  const runner = await pickRunner(registry, a.runner);
  if (!runner) return undefined;
  const policy =
    a.policy ?? ((await vscode.window.showQuickPick(["oracle", "nop", "openai"], { placeHolder: "Policy" })) as SubmitArgs["policy"]);
  if (!policy) return undefined;
  const request = submitRequest(a, policy);
  const client = await registry.client(runner);
  const { job } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Submitting ${path.basename(envDir)} to ${runner}…` },
    () => submitJob({ client, envDir, request }),
  );
  log.info(`submitted job ${job.id} (${job.env.name}, ${job.progress.total} rollouts) to ${runner}`);
  await tree.refreshRunner(runner);
  tree.follow(runner, job.id);
  void watchJob(tree, runner, job.id);
  return job.id;
}

async function cancelJob({ registry, tree }: RunnerDeps, arg?: unknown) {
  const j = jobArgs(arg);
  if (!j) return undefined;
  const client = await registry.client(j.runner);
  const job = await client.cancel(j.jobId);
  await tree.refreshRunner(j.runner);
  return job.state;
}

async function pullRun({ registry, log, runsDir }: RunnerDeps, arg?: unknown): Promise<string | undefined> {
  const j = jobArgs(arg);
  if (!j) return undefined;
  const dest = runsDir();
  if (!dest) {
    void vscode.window.showWarningMessage("Open a folder first: runs are pulled into its runs folder.");
    return undefined;
  }
  const client = await registry.client(j.runner);
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Pulling job ${j.jobId}…` }, () =>
    client.pull(j.jobId, dest.fsPath),
  );
  log.info(`pulled job ${j.jobId} from ${j.runner} into ${r.dir} (${r.files} files, ${r.state})`);
  await vscode.commands.executeCommand("rlenv.refreshRuns");
  await vscode.commands.executeCommand("rlenv.openDashboard", r.dir);
  return r.dir;
}

/** The runner commands (for the command table): add, refresh, submit, cancel, pull. Each returns its result for callers. */
export function runnerCommands(
  registry: RunnerRegistry,
  tree: RunnersTree,
  log: vscode.LogOutputChannel,
  runsDir: () => vscode.Uri | undefined,
): CommandSpec[] {
  const deps: RunnerDeps = { registry, tree, log, runsDir };
  return [
    { id: "rlenv.addRunner", run: (_c, arg) => addRunner(deps, arg as Parameters<typeof addRunner>[1]) },
    { id: "rlenv.removeRunner", run: (_c, arg) => removeRunner(deps, arg as RunnerNode | undefined) },
    { id: "rlenv.refreshRunners", run: () => tree.refresh() },
    { id: "rlenv.submitToRunner", executes: "submit to a runner", refused: undefined, run: (_c, arg) => submit(deps, arg) },
    { id: "rlenv.cancelJob", run: (_c, arg) => cancelJob(deps, arg) },
    { id: "rlenv.pullRun", run: (_c, arg) => pullRun(deps, arg) },
  ];
}

/** Live progress in the status area until the job ends; offers to pull it then. */
async function watchJob(tree: RunnersTree, runner: string, jobId: string): Promise<void> {
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Job ${jobId}` }, async (progress) => {
    for (;;) {
      const job = tree.job(runner, jobId);
      if (!job) return;
      progress.report({ message: `${job.state} ${job.progress.done}/${job.progress.total}` });
      if (job.state === "completed" || job.state === "failed" || job.state === "cancelled") break;
      await new Promise((r) => setTimeout(r, 500));
    }
  });
  const job = tree.job(runner, jobId);
  if (job?.state === "completed") {
    const choice = await vscode.window.showInformationMessage(
      `Job ${jobId} on ${runner} completed (${job.progress.done} rollouts).`,
      "Pull Run",
    );
    if (choice) await vscode.commands.executeCommand("rlenv.pullRun", { runner, jobId });
  }
}
