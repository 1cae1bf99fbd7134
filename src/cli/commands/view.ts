import type { Command } from "commander";

/** `rlenv view RUN|FILE`: the trajectory viewer or run dashboard in a browser, served on loopback. */
export function registerView(program: Command): void {
  program
    .command("view")
    .description(
      "Open a rollout file (trajectory viewer), a run folder (dashboard) or an audit report (rlenv audit's --out folder or audit.json) in the browser, served on 127.0.0.1 with a random token",
    )
    .argument("<path>", "runs/<id> folder, runs/<id>/rollouts/<rollout>.jsonl, an ATIF trajectory (.json), or an audit folder / audit.json")
    .option("--port <n>", "port to listen on (default: any free port)", (v) => Number.parseInt(v, 10))
    .option("--json", "print {url} as JSON on one line (for scripts)")
    .action(async (p: string, opts: { port?: number; json?: boolean }) => {
      // Only what listening needs is loaded before the URL is printed: the server's front (the
      // schemas and the view service load once the page's bundles are out, see http-server.ts).
      const { startViewServer, targetFor } = await import("../../core/view/server/http-server");
      // An ATIF trajectory (Harbor's format, a .json) is converted to a rollout file of ours first.
      const file = p.endsWith(".json") ? (await import("./atif")).viewableAtif(p) : p;
      const target = targetFor(file);
      const running = await startViewServer(target, {
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        // Token text for runs whose tokenizer folder is here (its code loaded on the first toggle only).
        tokenPieces: async (rollout) => (await import("../../core/view/server/token-text")).tokenPiecesForRollout(rollout),
      });
      if (opts.json) process.stdout.write(`${JSON.stringify({ url: running.url, app: target.app })}\n`);
      else process.stdout.write(`Serving ${target.app} for ${p}\nOpen ${running.url}\n(Ctrl-C to stop)\n`);
      const stop = () => void running.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
