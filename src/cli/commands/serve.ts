import { type Command, Option } from "commander";

interface ServeFlags {
  port: number;
  host: string;
  token?: string;
  maxSessions: number;
  idleTimeout: number;
  sandbox: "auto" | "docker" | "process";
  runs: string;
  warm?: number;
  unsafeNoSandbox?: boolean;
  noBuild?: boolean;
  json?: boolean;
  policyUrl?: string;
  policyApi: string;
  policyModel?: string;
}

const int = (name: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got '${v}'`);
  return n;
};

/** `rlenv serve DIR...`: environments for trainers, over OpenEnv, NeMo Gym and /v1/rollouts (docs/serve.md). */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description(
      "Serve environments to RL trainers while they train: OpenEnv (WS /ws, HTTP, MCP), NeMo Gym (resources and agent server) and /v1/rollouts (NDJSON), on one episode engine; every served episode writes its trajectory to a run folder",
    )
    .argument("<dirs...>", "environment folders (native or Harbor tasks)")
    .option("--port <n>", "port to listen on (0: any free port)", int("--port", 0), 8000)
    .option("--host <addr>", "address to bind; anything but loopback needs a token", "127.0.0.1")
    .option("--token <t>", "bearer token every route and WebSocket needs (default: RLENV_SERVE_TOKEN; none: loopback only)")
    .option(
      "--max-sessions <n>",
      "open sessions at most; one more is refused with the protocol's capacity error",
      int("--max-sessions", 1),
      64,
    )
    .option("--idle-timeout <s>", "close a session (and its sandbox) unused this many seconds; 0: never", int("--idle-timeout", 0), 600)
    .addOption(new Option("--sandbox <backend>", "auto | docker | process").choices(["auto", "docker", "process"]).default("auto"))
    .option("--runs <dir>", "where the served runs' folders go", "runs")
    .option("--warm <n>", "warm sandboxes kept per shape (docker)", int("--warm", 0))
    .option("--unsafe-no-sandbox", "process backend: run commands unisolated when nothing can isolate them")
    .option("--no-build", "do not build a missing image: fail naming the command that builds it")
    .option(
      "--policy-url <url>",
      "the OpenAI-compatible policy server NeMo Gym's /run plays against when a row names none (e.g. http://127.0.0.1:8001/v1)",
    )
    .option("--policy-api <api>", "chat_completions | responses: how --policy-url is spoken to", "chat_completions")
    .option("--policy-model <name>", "the model name sent to --policy-url when a request names none")
    .option("--json", "print {url, runs} as JSON on one line once listening (for scripts)")
    .addHelpText(
      "after",
      "\nExamples:\n  rlenv serve examples/code-fix --port 8000\n  RLENV_SERVE_TOKEN=s3cret rlenv serve envs/a envs/b --host 0.0.0.0 --max-sessions 256 --idle-timeout 300\n\nSee docs/serve.md for each trainer (TRL, SkyRL, NeMo RL, verl, ART, a custom loop).",
    )
    .action(async (dirs: string[], f: ServeFlags) => {
      if (!["auto", "docker", "process"].includes(f.sandbox))
        throw new Error(`--sandbox must be auto, docker or process, got '${f.sandbox}'`);
      if (f.policyApi !== "chat_completions" && f.policyApi !== "responses")
        throw new Error(`--policy-api must be chat_completions or responses, got '${f.policyApi}'`);
      const { startServeServer } = await import("../../core/serve/serve-server");
      const { SERVE_PROTOCOLS } = await import("../../core/serve/protocols");
      const token = f.token ?? process.env.RLENV_SERVE_TOKEN ?? undefined;
      const server = await startServeServer({
        dirs,
        port: f.port,
        host: f.host,
        ...(token ? { token } : {}),
        maxSessions: f.maxSessions,
        idleTimeoutMs: f.idleTimeout * 1000,
        backend: f.sandbox,
        runsDir: f.runs,
        ...(f.warm !== undefined ? { warm: f.warm } : {}),
        ...(f.unsafeNoSandbox ? { unsafeNoSandbox: true } : {}),
        ...(f.noBuild === false ? { noBuild: true } : {}),
        log: (m) => process.stderr.write(`${m}\n`),
        ...(f.policyUrl ? { policy: { baseURL: f.policyUrl, api: f.policyApi, ...(f.policyModel ? { model: f.policyModel } : {}) } } : {}),
        protocols: SERVE_PROTOCOLS,
      });
      const runs = server.ctx.environments.list.map((e) => e.runDir);
      if (f.json) process.stdout.write(`${JSON.stringify({ url: server.url, runs })}\n`);
      else
        process.stdout.write(
          `Serving ${server.ctx.environments.list.map((e) => e.name).join(", ")} on ${server.url}\nTrajectories: ${runs.join(", ")}\n(Ctrl-C or SIGTERM to stop: every session and sandbox is closed)\n`,
        );
      const stop = (signal: string) => {
        process.stderr.write(`${signal}: closing ${server.ctx.sessions.active} session(s)\n`);
        void server.close().then(() => process.exit(0));
      };
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
    });
}
