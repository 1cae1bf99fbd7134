import { existsSync, lstatSync, statSync } from "node:fs";
import path from "node:path";
import { BUILTIN_TOOLS } from "../schema/builtins";
import { Manifest, type Manifest as ManifestT } from "../schema/manifest";
import type { CustomTool } from "../schema/tool";
import { harborTaskDirs, isHarborTask, loadHarborTask } from "../harbor/load-harbor";
import { hashEnvironment } from "../util/hash";
import { loadTasks } from "./load-tasks";
import type { LoadedTask } from "../model/environment";
import { PositionIndex } from "./positions";
import { type Problem, START_OF_FILE } from "../model/problem";
import { DEFAULT_LOAD_LIMITS, type LoadLimits, readSourceText } from "../util/read-source";
import { findOutsideLinks, resolveInside } from "./safe-path";
import { taskProblemsDespiteManifest } from "./tasks-despite-manifest";
import { didYouMean } from "./suggest";
import { validateValue } from "./validate-value";
import type { Environment, LoadResult } from "../model/environment";

export const MANIFEST_FILE = "environment.yaml";

const DEFAULT_USER = "{{task.prompt}}";

export interface LoadOptions {
  /** Caps on file sizes and line counts (a runner taking uploads may set its own). */
  limits?: Partial<LoadLimits>;
}

export function loadEnvironment(dirOrManifest: string, opts: LoadOptions = {}): LoadResult {
  const limits = { ...DEFAULT_LOAD_LIMITS, ...opts.limits };
  const given = path.resolve(dirOrManifest);
  const isFile = statSync(given, { throwIfNoEntry: false })?.isFile() === true;
  const dir = isFile ? path.dirname(given) : given;
  // A Harbor task's task.toml stands for its folder (the editor finds tasks by it).
  if (isFile && path.basename(given) === "task.toml" && isHarborTask(dir)) return loadHarborTask(dir);
  const manifestPath = isFile ? given : path.join(dir, MANIFEST_FILE);
  if (!lstatSync(manifestPath, { throwIfNoEntry: false })) {
    if (!isFile && isHarborTask(dir)) return loadHarborTask(dir);
    const harbor = isFile ? [] : harborTaskDirs(dir);
    if (harbor.length > 0)
      return {
        env: null,
        problems: [
          {
            file: dir,
            ...START_OF_FILE,
            path: "",
            message: `a folder of ${harbor.length} Harbor tasks: each task is an environment of its own (its own image); name one (${path.basename(harbor[0] ?? "")}), or use validate, run or audit, which take the folder`,
            severity: "error",
          },
        ],
      };
    return {
      env: null,
      problems: [
        {
          file: manifestPath,
          ...START_OF_FILE,
          path: "",
          message: `no ${MANIFEST_FILE} here: an environment is a folder with an ${MANIFEST_FILE}`,
          severity: "error",
        },
      ],
    };
  }
  const read = readSourceText(manifestPath, limits.maxManifestBytes);
  if (!read.ok) return { env: null, problems: [{ file: manifestPath, ...read.span, path: "", message: read.message, severity: "error" }] };
  return loadManifestText(dir, manifestPath, read.text, limits);
}

type Here = (p: PropertyKey[], message: string, atKey?: boolean) => Problem;

/** The manifest's YAML as a mapping, with its positions; else the problems that stop the load. */
function manifestValue(manifestPath: string, text: string): { pos: PositionIndex; raw: object } | { problems: Problem[] } {
  const pos = new PositionIndex(text);
  const yamlErrors = pos.errors();
  if (yamlErrors.length > 0) {
    const problems: Problem[] = [];
    for (const e of yamlErrors) problems.push({ file: manifestPath, ...e.span, path: "", message: e.message, severity: "error" });
    return { problems };
  }
  const js = pos.value();
  if (!js.ok) return { problems: [{ file: manifestPath, ...js.span, path: "", message: js.message, severity: "error" }] };
  const raw = js.value;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return {
      problems: [
        {
          file: manifestPath,
          ...pos.spanOf([]),
          path: "",
          message: "the manifest must be a mapping of fields (name, domain, tasks, reward, …)",
          severity: "error",
        },
      ],
    };
  }
  return { pos, raw };
}

/** A problem at a field of the manifest, by its path of keys. */
function problemAt(manifestPath: string, pos: PositionIndex): Here {
  return (p, message, atKey = false) => ({
    file: manifestPath,
    ...pos.spanOf(p, atKey),
    path: p
      .map((s) => (typeof s === "number" ? `[${s}]` : s))
      .join(".")
      .replace(/\.\[/g, "["),
    message,
    severity: "error",
  });
}

/** Resolves a manifest field naming a path inside the folder; a path that is out, missing or of the wrong kind is a problem. */
function fieldResolver(dir: string, here: Here, problems: Problem[]) {
  return (p: PropertyKey[], rel: string | undefined, kind: "file" | "dir" | "any"): string | undefined => {
    if (rel === undefined) return undefined;
    const r = resolveInside(dir, rel);
    if (!r.ok) {
      problems.push(here(p, r.message));
      return undefined;
    }
    if (!existsSync(r.path)) {
      problems.push(here(p, `'${rel}' does not exist`));
      return undefined;
    }
    const st = statSync(r.path);
    if (kind === "file" && !st.isFile())
      problems.push(
        here(
          p,
          `'${rel}' is not a file${st.isDirectory() ? " (it is a folder)" : ": FIFOs, sockets and devices are refused without opening them"}`,
        ),
      );
    else if (kind === "dir" && !st.isDirectory()) problems.push(here(p, `'${rel}' is not a folder`));
    else return r.path;
    return undefined;
  };
}

/** Tools: built-ins must exist for the domain; names must be unique. */
function manifestTools(manifest: ManifestT, here: Here, problems: Problem[]): { builtinTools: string[]; customTools: CustomTool[] } {
  const known = BUILTIN_TOOLS[manifest.domain];
  const builtinTools: string[] = [];
  const customTools: CustomTool[] = [];
  const names = new Set<string>();
  manifest.tools.forEach((t, i) => {
    const name = typeof t === "string" ? t : t.name;
    if (names.has(name)) problems.push(here(["tools", i], `tool '${name}' is listed twice`));
    names.add(name);
    if (typeof t === "string") {
      if (!known.includes(t)) {
        const g = didYouMean(t, known);
        problems.push(
          here(
            ["tools", i],
            `unknown built-in tool '${t}' for domain ${manifest.domain}${g ? ` (did you mean '${g}'?)` : `; built-ins: ${known.join(", ")}`}`,
          ),
        );
      } else builtinTools.push(t);
    } else customTools.push(t);
  });
  return { builtinTools, customTools };
}

/**
 * A link out of the folder anywhere in it (a seed file, a test, a document, an asset, the build
 * context) would hand a host file to the sandbox: each is refused where it is. One a manifest
 * field names was refused at that field already.
 */
function outsideLinkProblems(dir: string, manifest: ManifestT, problems: Problem[]): void {
  const named = new Set(
    [
      manifest.tasks,
      manifest.prompt.system_file,
      manifest.prompt.user_file,
      manifest.sandbox.build,
      manifest.documents?.path,
      manifest.scene?.assets,
    ].flatMap((p) => (p ? [path.resolve(dir, p)] : [])),
  );
  for (const l of findOutsideLinks(dir)) {
    if (!named.has(l.file))
      problems.push({
        file: l.file,
        ...START_OF_FILE,
        path: "",
        message: `'${l.rel}' links outside the environment (to ${l.target})`,
        severity: "error",
      });
  }
}

/** Fields that exclude each other, and the section a domain needs. */
function sectionProblems(manifest: ManifestT, here: Here, problems: Problem[]): void {
  if (manifest.prompt.system && manifest.prompt.system_file)
    problems.push(here(["prompt", "system_file"], "give either system or system_file, not both"));
  if (manifest.prompt.user && manifest.prompt.user_file)
    problems.push(here(["prompt", "user_file"], "give either user or user_file, not both"));
  if (manifest.domain === "document" && !manifest.documents)
    problems.push(here([], "a document environment needs a 'documents' section naming its folder"));
}

/** A prompt's text: the file's when one is named (a file that cannot be read is a problem), else the inline text. */
function promptReader(limits: LoadLimits, problems: Problem[]) {
  return (file: string | undefined, inline: string): string => {
    if (!file) return inline;
    const r = readSourceText(file, limits.maxPromptBytes);
    if (r.ok) return r.text;
    problems.push({ file, ...r.span, path: "", message: r.message, severity: "error" });
    return "";
  };
}

/** Load from manifest text (the editor passes unsaved buffer contents). */
export function loadManifestText(dir: string, manifestPath: string, text: string, limitsGiven: Partial<LoadLimits> = {}): LoadResult {
  const limits = { ...DEFAULT_LOAD_LIMITS, ...limitsGiven };
  const value = manifestValue(manifestPath, text);
  if ("problems" in value) return { env: null, problems: value.problems };
  const { pos, raw } = value;
  const problems: Problem[] = [];
  const res = validateValue(Manifest, raw, manifestPath, pos);
  for (const p of res.problems) problems.push(p);
  const manifest = res.data;
  if (!manifest) {
    for (const p of taskProblemsDespiteManifest(dir, raw, (t) => loadTasks(t, dir, limits))) problems.push(p);
    return { env: null, problems };
  }

  const here = problemAt(manifestPath, pos);
  const resolveField = fieldResolver(dir, here, problems);
  const { builtinTools, customTools } = manifestTools(manifest, here, problems);
  const tasksPath = resolveField(["tasks"], manifest.tasks, "any");
  const systemPath = resolveField(["prompt", "system_file"], manifest.prompt.system_file, "file");
  const userPath = resolveField(["prompt", "user_file"], manifest.prompt.user_file, "file");
  const build = resolveField(["sandbox", "build"], manifest.sandbox.build, "file");
  const documents = resolveField(["documents", "path"], manifest.documents?.path, "dir");
  const assets = resolveField(["scene", "assets"], manifest.scene?.assets, "dir");
  outsideLinkProblems(dir, manifest, problems);
  sectionProblems(manifest, here, problems);

  let tasks: LoadedTask[] = [];
  if (tasksPath) {
    const t = loadTasks(tasksPath, dir, limits);
    tasks = t.tasks;
    // A loop, not push(...): a broken file of 200,000 lines would overflow the call's arguments.
    for (const p of t.problems) problems.push(p);
  }

  const readPrompt = promptReader(limits, problems);
  const env: Environment = {
    dir,
    manifestPath,
    manifest,
    tasks,
    prompts: {
      system: readPrompt(systemPath, manifest.prompt.system ?? ""),
      user: readPrompt(userPath, manifest.prompt.user ?? DEFAULT_USER),
    },
    builtinTools,
    customTools,
    hash: tasksPath ? hashEnvironment(dir) : "",
    paths: {
      tasks: tasksPath ?? path.join(dir, manifest.tasks),
      ...(build ? { build } : {}),
      ...(documents ? { documents } : {}),
      ...(assets ? { assets } : {}),
    },
  };
  return { env, problems };
}
