import { parse, stringify } from "smol-toml";
import type { Environment, LoadedTask } from "../model/environment";
import { parseSize } from "../sandbox/size";
import type { TaskFolder } from "./export-folder";

/** The task.toml an environment imported from Harbor keeps in its manifest's metadata (none: not imported). */
export interface ImportedToml {
  /** The file's fields. */
  toml?: Record<string, unknown>;
  /** The file's text, only while its fields are still `toml`'s. */
  text?: string;
}

/** The imported task.toml of the manifest `m`, its text kept only while the fields are unchanged. */
export function importedToml(m: Environment["manifest"]): ImportedToml {
  const harbor = m.metadata?.harbor as { task_toml?: Record<string, unknown>; task_toml_text?: string } | undefined;
  const harborToml = harbor?.task_toml;
  // The imported file's text, while its fields are still those of the manifest's copy (else they were edited here).
  let harborText: string | undefined;
  try {
    if (harbor?.task_toml_text && JSON.stringify(parse(harbor.task_toml_text)) === JSON.stringify(harborToml))
      harborText = harbor.task_toml_text;
  } catch {}
  return { toml: harborToml, text: harborText };
}

/** Writes an exported task's task.toml: the imported one (as written, while unedited), else one from the manifest's limits and timeouts. */
export function writeTaskToml(out: TaskFolder, m: Environment["manifest"], task: LoadedTask, imported: ImportedToml): void {
  const verifierTimeout = Math.max(...(task.reward ?? m.reward).map((v) => v.timeout ?? 600));
  const toml = imported.toml ?? {
    schema_version: "1.1",
    metadata: { ...(task.metadata ?? {}), rlenv_environment: m.name, rlenv_domain: m.domain },
    verifier: { timeout_sec: verifierTimeout },
    agent: { timeout_sec: m.sandbox.timeouts.rollout },
    environment: {
      build_timeout_sec: 600,
      cpus: Math.max(1, Math.ceil(m.sandbox.limits.cpus)),
      memory_mb: Math.round(parseSize(m.sandbox.limits.memory) / (1024 * 1024)),
      network_mode: "no-network",
    },
  };
  out.write("task.toml", imported.text ?? stringify(toml));
}
