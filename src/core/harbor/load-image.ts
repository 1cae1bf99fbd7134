import { createHash } from "node:crypto";
import type { HarborImage, HarborTaskConfig, Substitution } from "../model/harbor";
import type { Problem } from "../model/problem";
import { dockerfileWorkdir, standInTable, substituteBases, userStandInsFile } from "../sandbox/image/base-images";
import { fileProblem } from "./file-problem";
import type { HarborParts } from "./load-parts";

/** The task's Dockerfile as written, and as built: each base image replaced by its local stand-in. */
export interface SubstitutedDockerfile {
  original: string;
  text: string;
  substitutions: Substitution[];
}

function lineOf(text: string, pattern: RegExp): number {
  const i = text.split("\n").findIndex((l) => pattern.test(l));
  return i < 0 ? 1 : i + 1;
}

/**
 * environment/Dockerfile with its base images replaced by local stand-ins, each replaced or
 * unknown base a warning at its FROM line; null (an error said) when the stand-in table cannot be read.
 */
export function substituteHarborBases(parts: HarborParts, problems: Problem[]): SubstitutedDockerfile | null {
  const { dockerfilePath } = parts;
  let table: ReturnType<typeof standInTable>;
  try {
    table = standInTable();
  } catch (e) {
    problems.push(fileProblem(userStandInsFile(), (e as Error).message));
    return null;
  }
  const original = parts.context.get("Dockerfile")?.bytes.toString("utf8") ?? "";
  const sub = substituteBases(original, table);
  for (const s of sub.substitutions)
    problems.push(
      fileProblem(
        dockerfilePath,
        `base image ${s.image} is not pulled (no registry is reached): built on the local stand-in ${s.tag}: ${s.standIn.note} (the table: ${userStandInsFile()} and the shipped entries)`,
        "warning",
        lineOf(original, new RegExp(`^\\s*FROM\\s.*${s.image.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i")),
      ),
    );
  for (const u of sub.unknown)
    problems.push(
      fileProblem(
        dockerfilePath,
        `base image ${u} has no local stand-in: the build works only if the engine already has it (docker load), else add an entry to ${userStandInsFile()}`,
        "warning",
        lineOf(original, new RegExp(`^\\s*FROM\\s.*${u.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "i")),
      ),
    );
  return { original, text: sub.text, substitutions: sub.substitutions };
}

/** The workdir task.toml or the Dockerfile sets (null: none); none, or /, is a warning. */
export function harborWorkdir(
  config: HarborTaskConfig,
  dockerfile: SubstitutedDockerfile,
  parts: HarborParts,
  problems: Problem[],
): string | null {
  const workdir = config.workdir ?? dockerfileWorkdir(dockerfile.original);
  if (!workdir || workdir === "/")
    problems.push(
      fileProblem(
        parts.dockerfilePath,
        "the Dockerfile sets no WORKDIR (or WORKDIR /): the sandbox's workdir is /root instead of /",
        "warning",
      ),
    );
  return workdir;
}

/** The task's image: tagged with the task's name and the hash of the rewritten Dockerfile and the rest of its context. */
export function harborImage(name: string, config: HarborTaskConfig, dockerfile: SubstitutedDockerfile, parts: HarborParts): HarborImage {
  const { context } = parts;
  const h = createHash("sha256").update(dockerfile.text);
  for (const [p, f] of context) if (p !== "Dockerfile") h.update(`${p}\0${f.executable ? 1 : 0}\0${f.bytes.length}\0`).update(f.bytes);
  return {
    tag: `rlenv/harbor-${name}:${h.digest("hex").slice(0, 12)}`,
    contextDir: parts.contextDir,
    dockerfilePath: parts.dockerfilePath,
    dockerfile: dockerfile.text,
    context,
    substitutions: dockerfile.substitutions,
    buildTimeoutSec: config.buildTimeoutSec,
  };
}
