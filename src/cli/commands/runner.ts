import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { Command } from "commander";
import type { Executor } from "../../core/remote/jobs/executor";
import { JobManager } from "../../core/remote/jobs/jobs";
import { LocalExecutor } from "../../core/remote/executors/local-executor";
import { RunArchive } from "../../core/remote/archive/run-archive";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_UPLOAD,
  DEFAULT_REQUEST_TIMEOUT_MS,
  startRunnerServer,
} from "../../core/remote/server/server";
import { SlurmClient } from "../../core/remote/executors/slurm-client";
import { SlurmControl } from "../../core/remote/executors/slurm-control";
import { SlurmExecutor } from "../../core/remote/executors/slurm-executor";
import { loadOrCreateToken } from "../../core/remote/server/token";
import { parseS3Url } from "../../core/runs/object-store/location";
import { VERSION } from "../version";
import { registerJobs } from "./jobs";
import { registerLogs } from "./logs";
import { registerPull } from "./pull";
import { registerRunnerConfig } from "./runner-config";
import { registerSubmit } from "./submit";

interface ServeOptions {
  port: string;
  host: string;
  data: string;
  tlsCert?: string;
  tlsKey?: string;
  maxJobs: string;
  maxUploadMb: string;
  requestTimeoutS: string;
  idleTimeoutS: string;
  resume: boolean;
  slurmUrl?: string;
  slurmApiVersion: string;
  slurmUser: string;
  slurmTokenFile?: string;
  slurmPartition?: string;
  slurmPollMs: string;
  slurmConf?: string;
}

/** A timeout option in seconds: a positive number, or an error naming the option (0 would mean never). */
function positiveSeconds(value: string, option: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${option}: expected a positive number of seconds, got ${JSON.stringify(value)}`);
  return n;
}

/** The argv that starts this same CLI (node, its loader flags, the script) for work units. */
export function selfCommand(): string[] {
  const script = process.argv[1];
  if (!script) throw new Error("cannot tell how this CLI was started");
  return [process.execPath, ...process.execArgv, path.resolve(script)];
}

export function registerRunner(program: Command): void {
  const runner = program.command("runner").description("Run jobs for remote clients (on a GPU host or a cluster's login node)");
  serveOptions(runner.command("serve").description("Serve the runner HTTP API; prints the URL and where the token is")).action(serve);
  runner
    .command("token")
    .description("Print the runner's token (made on first use), to put into a client's credentials")
    .option("--data <dir>", "the runner's data dir", ".rlenv-runner")
    .action((o: { data: string }) => {
      process.stdout.write(`${loadOrCreateToken(path.resolve(o.data)).token}\n`);
    });
  registerRunnerConfig(runner);
}

function serveOptions(cmd: Command): Command {
  return cmd
    .option("--port <port>", "port to listen on (0: any free one)", "7800")
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--data <dir>", "data dir: token, job journal, job folders (on a shared filesystem for Slurm)", ".rlenv-runner")
    .option("--tls-cert <file>", "serve HTTPS with this certificate (PEM)")
    .option("--tls-key <file>", "private key of --tls-cert (PEM)")
    .option("--max-jobs <n>", "jobs run at once", "2")
    .option("--max-upload-mb <n>", "largest accepted bundle upload", String(DEFAULT_MAX_UPLOAD / 1024 / 1024))
    .option(
      "--request-timeout-s <s>",
      "longest time a whole request (an upload) may take to arrive",
      String(DEFAULT_REQUEST_TIMEOUT_MS / 1000),
    )
    .option("--idle-timeout-s <s>", "longest silence of a client's connection before it is closed", String(DEFAULT_IDLE_TIMEOUT_MS / 1000))
    .option("--no-resume", "leave interrupted jobs interrupted at start-up")
    .option("--slurm-url <url>", "slurmrestd URL: enables the slurm executor")
    .option("--slurm-user <name>", "X-SLURM-USER-NAME", process.env.USER ?? "root")
    .option("--slurm-api-version <v>", "slurmrestd's openapi version (v0.0.38 … v0.0.44), or auto: the newest it answers", "auto")
    .option("--slurm-token-file <file>", "file holding the Slurm JWT (else $SLURM_JWT)")
    .option("--slurm-partition <name>", "default partition")
    .option("--slurm-poll-ms <ms>", "how often shard states are read", "1000")
    .option("--slurm-conf <file>", "slurm.conf for scontrol (excluding failing nodes from elastic jobs); default $SLURM_CONF")
    .option(
      "--runs <url>",
      "also keep each finished job's run folder in an S3-compatible store: s3://bucket/prefix (%H: this host's name)",
    );
}

/** The executors this runner has: local always, Slurm when --slurm-url names a slurmrestd that answers. */
async function executorsFor(o: ServeOptions): Promise<Partial<Record<"local" | "slurm", Executor>>> {
  const executors: Partial<Record<"local" | "slurm", Executor>> = { local: new LocalExecutor() };
  if (!o.slurmUrl) return executors;
  const jwt = o.slurmTokenFile ? readFileSync(o.slurmTokenFile, "utf8").trim() : process.env.SLURM_JWT;
  if (!jwt) throw new Error("--slurm-url needs --slurm-token-file or $SLURM_JWT");
  const client = new SlurmClient({ url: o.slurmUrl, user: o.slurmUser, token: jwt, version: o.slurmApiVersion });
  await client.ping();
  executors.slurm = new SlurmExecutor({
    client,
    ...(o.slurmPartition ? { partition: o.slurmPartition } : {}),
    pollMs: Number(o.slurmPollMs),
    control: new SlurmControl(o.slurmConf ? { slurmConf: path.resolve(o.slurmConf) } : {}),
  });
  return executors;
}

/** `rlenv runner serve`: the job manager, its archive and the HTTP server, until SIGINT or SIGTERM. */
async function serve(o: ServeOptions & { runs?: string }): Promise<void> {
  if (Boolean(o.tlsCert) !== Boolean(o.tlsKey)) throw new Error("--tls-cert and --tls-key go together");
  // %H: this host's name, so runners sharing one unit file and bucket keep apart prefixes.
  const store = o.runs ? parseS3Url(o.runs.replaceAll("%H", hostname())) : undefined;
  const dataDir = path.resolve(o.data);
  const { token, file, created } = loadOrCreateToken(dataDir);
  const executors = await executorsFor(o);
  const jobs = new JobManager({
    dataDir,
    version: VERSION,
    rlenvCommand: selfCommand(),
    executors,
    maxConcurrentJobs: Number(o.maxJobs),
    resumeInterrupted: o.resume,
  });
  const archive = store ? new RunArchive(jobs, store, (line) => process.stderr.write(`runner: ${line}\n`)) : undefined;
  const problems = await jobs.init();
  archive?.sweep();
  for (const p of problems) process.stderr.write(`runner: journal: ${p}\n`);
  const srv = await startRunnerServer({
    jobs,
    token,
    version: VERSION,
    host: o.host,
    port: Number(o.port),
    maxUploadBytes: Number(o.maxUploadMb) * 1024 * 1024,
    requestTimeoutMs: positiveSeconds(o.requestTimeoutS, "--request-timeout-s") * 1000,
    idleTimeoutMs: positiveSeconds(o.idleTimeoutS, "--idle-timeout-s") * 1000,
    ...(o.tlsCert && o.tlsKey ? { tls: { cert: o.tlsCert, key: o.tlsKey } } : {}),
  });
  // One line a test or a supervisor can parse.
  process.stdout.write(
    `runner listening on ${srv.url} (token ${created ? "created" : "in"} ${file}; executors: ${Object.keys(executors).join(", ")}; ${jobs.list().length} job(s) in the journal)\n`,
  );
  const stop = async () => {
    await jobs.shutdown();
    await srv.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** The runner and its client commands, registered together from commands/index.ts. */
export const REMOTE_COMMANDS: Array<(program: Command) => void> = [
  registerRunner,
  registerSubmit,
  registerJobs,
  registerLogs,
  registerPull,
];
