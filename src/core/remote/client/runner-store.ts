import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Document, isMap, parseDocument } from "yaml";
import { credentialsFile, loadRunners, RunnerEntry, runnersFile, tokenEnvName } from "./client-config";

/**
 * What `rlenv runner add/login/list/remove` change: the runners.yaml every `--runner NAME`
 * resolves from, and the 0600 credentials file `loadToken` reads. The editor keeps the same
 * pairs in its settings and SecretStorage; both read runners.yaml.
 */

/** Write a file readable by its owner only (temp then rename), its folder 0700 when made here. */
function writePrivate(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The runners.yaml entry for a name, URL and CA file, or an error naming what is wrong with them. */
export function runnerEntry(name: string, url: string, ca?: string): RunnerEntry {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
    throw new Error(`runner name '${name}': letters, digits, '.', '_' and '-' only, starting with a letter or digit`);
  const entry = RunnerEntry.safeParse({ url, ...(ca ? { ca: path.resolve(ca) } : {}) });
  if (!entry.success || !/^https?:\/\//.test(url)) throw new Error(`runner URL '${url}': expected http(s)://host:port`);
  if (ca && !existsSync(ca)) throw new Error(`--ca ${ca}: no such file`);
  return entry.data;
}

/** Add or replace a runner in runners.yaml, keeping the rest of the file (pools, comments) as it is. */
export function addRunner(name: string, url: string, ca?: string): void {
  const entry = runnerEntry(name, url, ca);
  const file = runnersFile();
  loadRunners(file); // a broken file is reported (with why) rather than overwritten
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  const doc = text.trim() ? parseDocument(text) : new Document({ runners: {} });
  if (!isMap(doc.get("runners"))) doc.set("runners", doc.createNode({}));
  doc.setIn(["runners", name], doc.createNode(entry));
  writePrivate(file, doc.toString());
}

/** Remove a runner from runners.yaml and its token from the credentials file; false when neither had it. */
export function removeRunner(name: string): boolean {
  let found = false;
  const file = runnersFile();
  if (existsSync(file) && loadRunners(file)[name]) {
    const doc = parseDocument(readFileSync(file, "utf8"));
    doc.deleteIn(["runners", name]);
    writePrivate(file, doc.toString());
    found = true;
  }
  const creds = readCredentials();
  if (name in creds) {
    delete creds[name];
    writePrivate(credentialsFile(), `${JSON.stringify(creds, null, 2)}\n`);
    found = true;
  }
  return found;
}

function readCredentials(): Record<string, string> {
  const file = credentialsFile();
  if (!existsSync(file)) return {};
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) throw new Error(`${file} is readable by others (mode ${mode.toString(8)}): chmod 600 it`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error(`${file}: expected an object of runner name → token`);
  return Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** A token as typed or piped, trimmed; an error when it cannot be one (empty, whitespace inside). */
export function tokenText(token: string): string {
  const t = token.trim();
  if (!t) throw new Error("the token is empty");
  if (/\s/.test(t)) throw new Error("the token has whitespace inside it: paste only the token `rlenv runner token` printed");
  return t;
}

/** Store a runner's token in the 0600 credentials file. */
export function storeToken(name: string, token: string): void {
  const t = tokenText(token);
  writePrivate(credentialsFile(), `${JSON.stringify({ ...readCredentials(), [name]: t }, null, 2)}\n`);
}

/** Where a runner's token would come from now, never the token itself. */
export function tokenSource(name: string): string {
  if (process.env[tokenEnvName(name)]) return `$${tokenEnvName(name)}`;
  if (process.env.RLENV_RUNNER_TOKEN) return "$RLENV_RUNNER_TOKEN";
  try {
    if (readCredentials()[name]) return credentialsFile();
  } catch (e) {
    return `unreadable: ${(e as Error).message}`;
  }
  return "none (rlenv runner login)";
}
