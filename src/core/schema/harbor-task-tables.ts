import { z } from "zod";
import {
  AllowedHosts,
  baselineNetworkRule,
  lowerCasedEnum,
  McpTransport,
  mcpTransportRule,
  phaseNetworkRule,
  sharedVerifierRule,
  withRules,
} from "./harbor-task-rules";

/**
 * The tables of Harbor's task.toml (schema 1.0–1.3, as Harbor's models/task/config.py reads
 * them): [verifier], [agent], [solution], [environment] and the tables they hold. Each field
 * carries its type, description, default, enum values and examples; `x-rlenv-unsupported` says
 * what a run here does instead when the task sets a field this tool reads but cannot honour.
 * The rules tying fields together (schema/harbor-task-rules.ts) are part of the tables. The
 * loader's checks, the editor's completion and hover, and the JSON Schema published for TOML
 * editors (schemas/harbor-task.schema.json) are all derived from these schemas.
 */

/** The metadata key of a field rlenv reads but does not act on: its value says what happens instead. */
export const UNSUPPORTED = "x-rlenv-unsupported";

export interface FieldDoc {
  examples?: unknown[];
  deprecated?: boolean;
  /** What a run here does instead of what the field asks for. */
  unsupported?: string;
}

/** A field's schema with its description and the rest of its documentation, as metadata zod's JSON Schema writes out. */
export function doc<T extends z.ZodType>(schema: T, description: string, more: FieldDoc = {}): T {
  return schema.meta({
    description,
    ...(more.examples ? { examples: more.examples } : {}),
    ...(more.deprecated ? { deprecated: true } : {}),
    ...(more.unsupported ? { [UNSUPPORTED]: more.unsupported } : {}),
  });
}

const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$/i;

/** Harbor's memory/storage strings ("2G", "512M", "10240") in megabytes; null when the text is not a size. */
export function sizeToMb(s: string): number | null {
  const m = SIZE.exec(s);
  if (!m) return null;
  const n = Number(m[1]);
  const unit = (m[2] ?? "").toLowerCase();
  const factor = unit === "k" ? 1 / 1024 : unit === "g" ? 1024 : unit === "t" ? 1024 * 1024 : unit === "m" ? 1 : 1 / (1024 * 1024);
  return Math.round(n * factor);
}

/** A size as Harbor writes it ("2G"); a bare number is taken as megabytes. */
const Size = z.union([
  z.string().refine((s) => sizeToMb(s) !== null, { error: (iss) => `not a size: ${JSON.stringify(iss.input)} (Harbor writes "2G")` }),
  z.number().nonnegative(),
]);
const Seconds = z.number().nonnegative();
const User = z.union([z.string(), z.int()]);
const Hosts = z.array(z.string());
export const NETWORK_MODES = ["public", "no-network", "allowlist"] as const;
const NetworkMode = z.enum(NETWORK_MODES);
/** TOML values Harbor's pydantic turns into environment strings. */
const EnvTable = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()], { error: "an environment value must be a string" }));
const NO_NETWORK = "sandboxes have no network, so no host is allowed";
// biome-ignore lint/suspicious/noTemplateCurlyInString: Harbor's own ${VAR} syntax, shown as written
const SHELL_VARS = "${VAR} and ${VAR:-default} are read from the host";

export const HealthcheckTable = z.strictObject({
  command: doc(z.string(), "Shell command to run; exit 0 means healthy.", { examples: ["test -f /app/ready"] }),
  interval_sec: doc(Seconds.default(5), "Seconds between attempts."),
  timeout_sec: doc(Seconds.default(30), "Seconds one attempt may run."),
  start_period_sec: doc(Seconds.default(0), "Grace period after start during which failures do not count."),
  start_interval_sec: doc(Seconds.default(5), "Seconds between attempts during the start period."),
  retries: doc(z.int().nonnegative().default(3), "Consecutive failures before the check has failed."),
});

const McpServer = withRules(
  z.strictObject({
    name: doc(z.string(), "The server's name."),
    transport: doc(McpTransport, 'How the agent reaches it ("http" is read as streamable-http).'),
    url: doc(z.string(), "Its URL (required for sse and streamable-http).").optional(),
    command: doc(z.string(), "The command that starts it (required for stdio).").optional(),
    args: doc(Hosts, "The command's arguments (stdio).").optional(),
  }),
  [mcpTransportRule],
);

export const EnvironmentTable = withRules(
  z.strictObject({
    build_timeout_sec: doc(Seconds.default(600), "Seconds the image build may take ($RLENV_BUILD_TIMEOUT_MULTIPLIER scales it).", {
      examples: [600],
    }),
    docker_image: doc(z.string(), "A prebuilt image Harbor pulls; here environment/Dockerfile is built instead (no registry is reached).", {
      examples: ["org/image:tag"],
    }).optional(),
    os: doc(lowerCasedEnum(["linux", "windows"], "linux"), "The container's operating system, in any case (windows is not run here)."),
    cpus: doc(z.number().nonnegative().default(1), "CPUs of the sandbox.", { examples: [1] }),
    memory: doc(Size, 'Memory of the sandbox, "2G" (deprecated: memory_mb).', { examples: ["2G"], deprecated: true }).optional(),
    memory_mb: doc(z.int().nonnegative().default(2048), "Memory of the sandbox in MB.", { examples: [2048] }),
    storage: doc(Size, 'Disk of the sandbox, "10G" (deprecated: storage_mb).', {
      examples: ["10G"],
      deprecated: true,
      unsupported:
        "the disk size bounds each file (sandbox.limits.file_size), not their total (the engine's storage quota needs xfs with pquota)",
    }).optional(),
    storage_mb: doc(z.int().nonnegative().default(10240), "Disk of the sandbox in MB.", {
      examples: [10240],
      unsupported:
        "the disk size bounds each file (sandbox.limits.file_size), not their total (the engine's storage quota needs xfs with pquota)",
    }),
    gpus: doc(z.int().nonnegative().default(0), "GPUs the task needs.", { unsupported: "no GPU is given to sandboxes" }),
    gpu_types: doc(Hosts, "GPU models the task accepts (H100, A100, …).", { unsupported: "no GPU is given to sandboxes" }).optional(),
    tpu: doc(
      z.strictObject({
        type: doc(z.string(), "The TPU type (v5e, v5p, …).").optional(),
        topology: doc(z.string(), "The TPU slice's topology (2x2, …).").optional(),
      }),
      "TPU type and topology.",
      {
        unsupported: "no TPU is given to sandboxes",
      },
    ).optional(),
    network_mode: doc(NetworkMode, "The sandbox's network (Harbor's default: public); sandboxes here have none.").optional(),
    allowed_hosts: doc(AllowedHosts, 'Hosts an allowlist lets through (network_mode = "allowlist").', {
      unsupported: NO_NETWORK,
    }).optional(),
    allow_internet: doc(z.boolean(), "Deprecated: false is network_mode = no-network.", { deprecated: true }).optional(),
    env: doc(EnvTable, `The container's environment (${SHELL_VARS}): here solve.sh's and test.sh's.`).optional(),
    mcp_servers: doc(z.array(McpServer), "MCP servers for the agent.", {
      unsupported: "MCP servers are not started; the agent gets the sandbox's shell tools only",
    }).optional(),
    skills_dir: doc(z.string(), "Skills copied to the agent's skills folder.", {
      unsupported: "skills are not installed for the agent",
    }).optional(),
    workdir: doc(
      z.string().refine((s) => s.startsWith("/"), "must be an absolute path"),
      "The working directory, over the Dockerfile's WORKDIR.",
      { examples: ["/app"] },
    ).optional(),
    healthcheck: doc(HealthcheckTable, "A command that must pass before the agent starts.", {
      unsupported: "the health check is not run before the agent starts",
    }).optional(),
  }),
  [baselineNetworkRule],
);

const agentFields = {
  timeout_sec: doc(Seconds, "Seconds the agent may work (schema 1.0: default 600; later: no limit).", { examples: [600] }).optional(),
  user: doc(User, "The user (or UID) the agent runs as.", { unsupported: "the agent runs as root in the task's sandbox" }).optional(),
  network_mode: doc(NetworkMode, "The agent phase's network, over [environment]'s.").optional(),
  allowed_hosts: doc(AllowedHosts, 'Hosts an allowlist lets through during the agent phase (network_mode = "allowlist" here).', {
    unsupported: NO_NETWORK,
  }).optional(),
};
export const AgentTable = withRules(z.strictObject(agentFields), [phaseNetworkRule]);

const verifierFields = {
  timeout_sec: doc(Seconds.default(600), "Seconds tests/test.sh may run.", { examples: [600] }),
  env: doc(EnvTable, `Environment of tests/test.sh (${SHELL_VARS}).`).optional(),
  user: doc(User, "The user (or UID) test.sh runs as.", { unsupported: "the verifier runs as root in the task's sandbox" }).optional(),
  network_mode: doc(NetworkMode, "The verifier phase's network, over [environment]'s.").optional(),
  allowed_hosts: doc(AllowedHosts, 'Hosts an allowlist lets through during the verifier phase (network_mode = "allowlist" here).', {
    unsupported: NO_NETWORK,
  }).optional(),
  environment_mode: doc(z.enum(["shared", "separate"]), "Whether the verifier shares the agent's sandbox or gets its own.", {
    unsupported: "the verifier runs in the agent's sandbox (shared)",
  }).optional(),
  environment: doc(EnvironmentTable, "A separate verifier image (same fields as [environment]), built from tests/.", {
    unsupported: "the verifier runs in the agent's sandbox; a separate verifier image is not built",
  }).optional(),
  collect: doc(z.array(z.record(z.string(), z.unknown())), "Commands collecting files for the verifier.", {
    unsupported: "no files are collected from the sandbox besides /logs/verifier's reward",
  }).optional(),
};
export const VerifierTable = withRules(z.strictObject(verifierFields), [phaseNetworkRule, sharedVerifierRule]);

export const SolutionTable = z.strictObject({
  env: doc(EnvTable, "Environment of solution/solve.sh, over [environment].env.").optional(),
});

/** [steps.agent] and [steps.verifier]: the task's tables, with a timeout that must be positive and has no default (the task's applies). */
export const StepAgentTable = withRules(
  z.strictObject({
    ...agentFields,
    timeout_sec: doc(z.number().positive(), "Seconds the agent may work on this step (else [agent]'s).").optional(),
  }),
  [phaseNetworkRule],
);
export const StepVerifierTable = withRules(
  z.strictObject({
    ...verifierFields,
    timeout_sec: doc(z.number().positive(), "Seconds this step's test.sh may run (else [verifier]'s).").optional(),
    env: doc(EnvTable, "This step's test.sh environment, over [verifier].env.").optional(),
  }),
  [phaseNetworkRule, sharedVerifierRule],
);

/** A path copied out of the sandbox after the run: a string, or { source, destination, exclude }. */
export const Artifact = z.union([
  z.string(),
  z.strictObject({ source: z.string(), destination: z.string().optional(), exclude: z.array(z.string()).optional() }),
]);
