import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { RunnerClient } from "./client";

/**
 * Where the client finds runners: `~/.config/rlenv/runners.yaml` (or $RLENV_RUNNERS):
 *   runners:
 *     gpu-box: { url: https://gpu-box:7800, ca: /path/ca.pem }
 * and tokens: $RLENV_RUNNER_TOKEN_<NAME> (upper-cased, - → _) or $RLENV_RUNNER_TOKEN, else the 0600 credentials
 * file `~/.config/rlenv/credentials.json` ({ "gpu-box": "token" }), which is refused
 * when others can read it.
 */
export const RunnerEntry = z.object({
  url: z.string().url(),
  ca: z.string().optional().describe("PEM file of a CA to trust for a self-signed runner certificate"),
});
export const RunnersFile = z.object({ runners: z.record(z.string(), RunnerEntry) });
export type RunnerEntry = z.infer<typeof RunnerEntry>;

export function configDir(): string {
  return process.env.RLENV_CONFIG_DIR ?? path.join(process.env.XDG_CONFIG_HOME ?? path.join(homedir(), ".config"), "rlenv");
}

export function runnersFile(): string {
  return process.env.RLENV_RUNNERS ?? path.join(configDir(), "runners.yaml");
}

export function loadRunners(file = runnersFile()): Record<string, RunnerEntry> {
  if (!existsSync(file)) return {};
  const raw = parseYaml(readFileSync(file, "utf8")) as unknown;
  const r = RunnersFile.safeParse(raw ?? { runners: {} });
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`${file}: ${i?.path.join(".") ?? ""}: ${i?.message ?? "invalid"}`);
  }
  return r.data.runners;
}

export function tokenEnvName(runner: string): string {
  return `RLENV_RUNNER_TOKEN_${runner.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

export function credentialsFile(): string {
  return process.env.RLENV_CREDENTIALS ?? path.join(configDir(), "credentials.json");
}

export function loadToken(runner: string): string {
  const fromEnv = process.env[tokenEnvName(runner)] ?? process.env.RLENV_RUNNER_TOKEN;
  if (fromEnv) return fromEnv;
  const file = credentialsFile();
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) throw new Error(`${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`);
    const creds = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const t = creds[runner];
    if (typeof t === "string" && t) return t;
  }
  throw new Error(`no token for runner "${runner}": set ${tokenEnvName(runner)} or add it to ${file} (mode 0600)`);
}

/** A runner by name from the config file, or an ad-hoc URL. */
export function resolveRunner(nameOrUrl: string): { name: string; entry: RunnerEntry } {
  if (/^https?:\/\//.test(nameOrUrl)) return { name: new URL(nameOrUrl).host, entry: { url: nameOrUrl } };
  const runners = loadRunners();
  const entry = runners[nameOrUrl];
  if (!entry) {
    const known = Object.keys(runners);
    throw new Error(`no runner "${nameOrUrl}" in ${runnersFile()}${known.length ? ` (known: ${known.join(", ")})` : ""}`);
  }
  return { name: nameOrUrl, entry };
}

/** The client for `--runner NAME|URL` (token from the environment or the credentials file). */
export function runnerClientFor(nameOrUrl: string | undefined): RunnerClient {
  const name = nameOrUrl ?? process.env.RLENV_RUNNER;
  if (!name) throw new Error("which runner? pass --runner NAME (from runners.yaml) or a URL, or set RLENV_RUNNER");
  const { name: key, entry } = resolveRunner(name);
  return new RunnerClient({ url: entry.url, token: loadToken(key), ...(entry.ca ? { ca: entry.ca } : {}) });
}
