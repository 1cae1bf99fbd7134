/** The shapes of a Harbor task as loaded: its task.toml, its image, the files its folder holds. */

/**
 * A locally built image that stands in for a base image a task's Dockerfile names but no
 * registry here can give. Every stand-in is a Debian image rlenv builds with debootstrap, of
 * the base's own Debian release where it names one (rlenv/python:bookworm for Debian 12,
 * rlenv/python:trixie for Debian 13: python3, python3-pytest, git, procps) plus `lines`, so
 * the sandbox's agent (python3) and the offline verifier shim (python3-pytest) are always there
 * and a task's `apt-get install pkg=VERSION` finds its release's versions.
 */
export interface BaseStandIn {
  /** The FROM image it stands for: exact (`ubuntu:24.04`), or with `*` for any run of characters (`python:3.*`, `python:3*-trixie`). */
  match: string;
  /** Short name, part of the stand-in's tag. */
  name: string;
  /** The image it is built on (default rlenv/python:bookworm). */
  from?: string;
  /** Dockerfile lines after FROM (RUN may use Debian's mirror: stand-ins build with host networking). */
  lines: string[];
  /** What differs from the real image, shown in the substitution warning. */
  note: string;
}

/** A FROM line's image replaced by a stand-in. */
export interface Substitution {
  image: string;
  standIn: BaseStandIn;
  tag: string;
}

/** A file of a task folder: its bytes and whether it is executable (Harbor keeps modes). */
export interface TreeFile {
  bytes: Buffer;
  executable: boolean;
}

/** Harbor's task.toml, read into what a rollout needs; `raw` keeps the file's own values for export. */
export interface HarborTaskConfig {
  /** `version` (1.0) or `schema_version` (1.1+). */
  schemaVersion: string;
  raw: Record<string, unknown>;
  /** `[task].name` (1.3: "org/name"), when given. */
  name?: string;
  metadata: Record<string, unknown>;
  /** Null: no limit (schema 1.1+ default). */
  agentTimeoutSec: number | null;
  verifierTimeoutSec: number;
  buildTimeoutSec: number;
  dockerImage?: string;
  cpus: number;
  memoryMb: number;
  storageMb: number;
  workdir?: string;
  networkMode: "public" | "no-network" | "allowlist";
  env: Record<string, string>;
  verifierEnv: Record<string, string>;
  solutionEnv: Record<string, string>;
  /** `[[steps]]`: names in order, each with its own gate. */
  steps: HarborStepConfig[];
  multiStepRewardStrategy: "mean" | "final";
}

/** One `[[steps]]` entry: Harbor's StepConfig. */
export interface HarborStepConfig {
  name: string;
  /** Which `[[steps]]` entry of task.toml it is (0-based): an entry in error is left out, so later steps' problems are placed by this. */
  entry?: number;
  /** A number gates the "reward" key; a table gates each key it names. */
  minReward?: number | Record<string, number>;
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  /** `[steps.verifier].env`, over the task's `[verifier].env`. */
  verifierEnv: Record<string, string>;
}

/** What a Harbor task's sandbox image is built from, and how (see sandbox/image/harbor-build.ts). */
export interface HarborImage {
  /** The tag the task's image gets: its name and the hash of what goes in (context, rewritten Dockerfile). */
  tag: string;
  contextDir: string;
  dockerfilePath: string;
  /** The Dockerfile with each base image replaced by its local stand-in. */
  dockerfile: string;
  context: Map<string, TreeFile>;
  substitutions: Substitution[];
  buildTimeoutSec: number;
}

/** A Harbor task loaded as an environment of one task (`Environment.harbor`). */
export interface HarborInfo {
  taskDir: string;
  config: HarborTaskConfig;
  image: HarborImage;
}
