import { z } from "zod";
import { Domain, RelativePath, Slug } from "./common";
import { ToolEntry } from "./tool";
import { VerifierConfig } from "./verifier";

/** A bare number where a size belongs: say which string it most likely meant (megabytes, as `512` nearly always is). */
const sizeHint = (iss: { input?: unknown }) =>
  typeof iss.input === "number"
    ? `a size needs a unit: '${iss.input}m' for ${iss.input} megabytes, '${iss.input}g' for gigabytes`
    : undefined;

export const SandboxLimits = z.strictObject({
  cpus: z.number().positive().default(1).describe("CPU cores (fractions allowed)"),
  memory: z
    .string({ error: sizeHint })
    .regex(/^\d+(\.\d+)?\s*[kmgKMG]i?[bB]?$/, "a size such as 512m or 2g")
    .default("1g")
    .describe("Memory limit; swap is disabled"),
  pids: z.number().int().positive().default(256),
  output: z.number().int().positive().default(1_000_000).describe("Bytes of stdout+stderr kept per exec"),
  tmpfs: z.string({ error: sizeHint }).default("256m").describe("Size of /tmp"),
  disk: z
    .string({ error: sizeHint })
    .regex(/^\d+(\.\d+)?\s*[kmgKMG]i?[bB]?$/, "a size such as 512m or 2g")
    .default("2g")
    .describe(
      "Disk quota of the sandbox's writable folders (the workdir, and /tmp on the process backend): a write past it fails with 'No space left on device', the model's doing, scored",
    ),
  file_size: z
    .string({ error: sizeHint })
    .regex(/^\d+(\.\d+)?\s*[kmgKMG]i?[bB]?$/, "a size such as 512m or 2g")
    .default("1g")
    .describe(
      "Largest file a command may write (RLIMIT_FSIZE): a runaway writer is stopped there (exit 153, SIGXFSZ) instead of filling the host's disk",
    ),
});

export const SandboxTimeouts = z.strictObject({
  step: z.number().positive().default(30).describe("Seconds for one tool call"),
  rollout: z.number().positive().default(600).describe("Seconds for a whole rollout"),
});

export const SandboxSpec = z
  .strictObject({
    image: z.string().optional().describe("Image name, e.g. rlenv/python:bookworm"),
    build: RelativePath.optional().describe("A Dockerfile in the environment, built on a local base image"),
    workdir: z.string().startsWith("/").default("/workspace"),
    network: z.enum(["none"]).default("none").describe("Sandboxes have no network"),
    user: z.string().default("1000:1000"),
    limits: SandboxLimits.default(SandboxLimits.parse({})),
    timeouts: SandboxTimeouts.default(SandboxTimeouts.parse({})),
    reset: z.enum(["restore", "recreate"]).default("restore").describe("How a warm sandbox is reset between rollouts"),
    rootfs: z
      .enum(["read-only", "writable"])
      .default("read-only")
      .describe(
        "The image's root file system: read-only (only the workdir and /tmp are writable), or writable (Harbor tasks); a writable one is never reused",
      ),
    capabilities: z
      .enum(["none", "default"])
      .default("none")
      .describe(
        "Linux capabilities of the sandbox's processes on the docker backend: none (every one dropped), or default (Docker's default set, as Harbor and `docker run` give: root can chown, apt-get can drop to its _apt user); no-new-privileges, no network and the limits stay either way. Harbor tasks get default. The process backend grants none whatever this says",
      ),
  })
  .refine((s) => !(s.image && s.build), { message: "give either image or build, not both" });
export type SandboxSpec = z.infer<typeof SandboxSpec>;

export const PromptSpec = z.strictObject({
  system: z.string().optional().describe("System prompt template; {{task.prompt}}, {{task.metadata.x}}, {{env.name}}"),
  user: z.string().optional().describe("User prompt template; defaults to {{task.prompt}}"),
  system_file: RelativePath.optional(),
  user_file: RelativePath.optional(),
});

export const ValidationSpec = z.strictObject({
  oracle: z.strictObject({ min: z.number().min(0).max(1).default(1) }).default({ min: 1 }),
  nop: z.strictObject({ max: z.number().min(0).max(1).default(0) }).default({ max: 0 }),
  audit: z
    .strictObject({
      min_mutation_score: z
        .number()
        .min(0)
        .max(1)
        .default(0.8)
        .describe(
          "rlenv audit fails a task whose verifier rejects fewer of the plausible wrong solutions than this (killed / non-equivalent mutants)",
        ),
    })
    .default({ min_mutation_score: 0.8 }),
});

export const SceneConfig = z.strictObject({
  backend: z.enum(["builtin", "blender"]).default("builtin"),
  assets: RelativePath.optional().describe("Folder of glTF/GLB assets the agent may place"),
});

export const DocumentsConfig = z.strictObject({
  path: RelativePath.describe("Folder of documents (PDF, HTML, Markdown, text, CSV)"),
  chunk_tokens: z.number().int().positive().default(200),
});

export const JudgeSpec = z.strictObject({
  sandbox: z
    .enum(["fresh", "agent"])
    .default("fresh")
    .describe(
      "Where verifiers that run code are run: fresh (a new sandbox from the warm pool that receives only the submission, the workdir's files as data without bytecode caches, start-up hooks or site folders, then the hidden files) or agent (the agent's own sandbox after every process in it is stopped: for tasks judged on the whole machine's state, e.g. Harbor's)",
    ),
  hack_signals: z
    .enum(["flag", "zero", "off"])
    .default("flag")
    .describe(
      "What a rollout whose submission shows a hack signal (test framework internals, sys.modules or builtins, frame introspection, hidden-test paths, /proc of other processes, ctypes, start-up hooks) gets: flag (recorded in its reward event, the run summary and /metrics), zero (recorded and its reward set to 0) or off (not scanned)",
    ),
});
export type JudgeSpec = z.infer<typeof JudgeSpec>;

export const Manifest = z.strictObject({
  name: Slug,
  domain: Domain,
  description: z.string().default(""),
  version: z.string().optional(),
  sandbox: SandboxSpec.default(SandboxSpec.parse({})),
  tasks: RelativePath.describe("A JSONL file of tasks or a folder with one task folder each"),
  prompt: PromptSpec.default({}),
  tools: z.array(ToolEntry).default([]),
  max_turns: z.number().int().positive().default(20),
  tool_output_limit: z.number().int().positive().default(16_000).describe("Characters of a tool result shown to the policy"),
  reward: z.array(VerifierConfig).min(1, "at least one verifier is needed"),
  validation: ValidationSpec.default(ValidationSpec.parse({})),
  judge: JudgeSpec.default(JudgeSpec.parse({})).describe("How the reward is judged: in which sandbox, and what a hack signal does"),
  scene: SceneConfig.optional(),
  documents: DocumentsConfig.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Manifest = z.infer<typeof Manifest>;
