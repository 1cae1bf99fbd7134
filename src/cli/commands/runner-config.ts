import type { Command } from "commander";
import { credentialsFile, loadRunners, type RunnerEntry, runnersFile } from "../../core/remote/client/client-config";
import { addRunner, removeRunner, runnerEntry, storeToken, tokenSource, tokenText } from "../../core/remote/client/runner-store";
import { checkRunnerToken } from "../../core/remote/client/token-check";

/**
 * A token from stdin: piped (`rlenv runner token | rlenv runner login gpu1`, `… < file`), or
 * typed at a terminal with echo off. Never from an argument: argv is visible to every user
 * in `ps` and kept in shell history.
 */
export async function readTokenFromStdin(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(c as Buffer);
    return (Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "").trim();
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  let typed = "";
  try {
    return await new Promise<string>((resolve, reject) => {
      stdin.on("data", (d: Buffer) => {
        for (const ch of d.toString("utf8")) {
          if (ch === "\r" || ch === "\n") return resolve(typed.trim());
          if (ch === "\u0003") return reject(new Error("cancelled"));
          if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
          else typed += ch;
        }
      });
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write("\n");
  }
}

/** The token for `add --token` / `login`: from --token-env VAR, else stdin. */
async function tokenFor(name: string, tokenEnv: string | undefined): Promise<string> {
  if (tokenEnv) {
    const t = process.env[tokenEnv];
    if (!t) throw new Error(`--token-env ${tokenEnv}: that variable is not set`);
    return t;
  }
  return readTokenFromStdin(`token for runner ${name} (from \`rlenv runner token\` on the runner; not shown): `);
}

/**
 * Whether to store `token` for runner `name`: the runner took it (GET /v1/status answered), or
 * --no-verify said not to ask (a warning says so). Otherwise says why on stderr, naming the runner
 * and its URL, and sets exit code 1: a check failed, and nothing is saved.
 */
async function tokenTaken(name: string, entry: RunnerEntry, token: string, verify: boolean): Promise<boolean> {
  const at = `runner ${name} (${entry.url})`;
  if (!verify) {
    process.stderr.write(`rlenv: warning: the token for ${at} is stored unchecked (--no-verify)\n`);
    return true;
  }
  const check = await checkRunnerToken(entry, token);
  if (check.ok) {
    process.stderr.write(`${at} took the token (runner ${check.version})\n`);
    return true;
  }
  const why = {
    "wrong-token": `${at} refused the token (${check.detail}): take it from \`rlenv runner token\` on the runner`,
    unreachable: `${at} is unreachable (${check.detail}): start it (rlenv runner serve), or store the token unchecked with --no-verify`,
    "untrusted-certificate": `${at}: its certificate is not trusted (${check.detail}): name its CA with rlenv runner add ${name} ${entry.url} --ca FILE`,
    "not-a-runner": `${at} is not an rlenv runner, or not this version's (${check.detail})`,
  }[check.reason];
  process.stderr.write(`rlenv: ${why}; nothing was saved\n`);
  process.exitCode = 1;
  return false;
}

/** `rlenv runner add NAME URL [--token]`: the runner in runners.yaml, and its token once the runner took it. */
function registerAdd(runner: Command): void {
  runner
    .command("add")
    .description(
      "Add (or replace) a runner in runners.yaml; with --token also check its token against the runner and store it, as `login` does",
    )
    .argument("<name>", "the name --runner will take")
    .argument("<url>", "the runner's URL, e.g. https://gpu1:7800")
    .option("--ca <file>", "PEM file of a CA to trust for a self-signed runner certificate")
    .option("--token", "read the token from stdin (piped, or typed with echo off), check it against the runner, store it 0600")
    .option("--token-env <var>", "check and store the token held in this environment variable")
    .option("--no-verify", "store the token without asking the runner whether it takes it (a runner that is down now)")
    .addHelpText(
      "after",
      `
With a token, nothing is saved unless the runner answers and takes it (exit 1 otherwise).

Examples:
  rlenv runner add gpu1 https://gpu1:7800 --ca gpu1-ca.pem --token
  ssh gpu1 rlenv runner token | rlenv runner add gpu1 https://gpu1:7800 --token
  rlenv runner add gpu1 https://gpu1:7800 --token-env GPU1_TOKEN --no-verify`,
    )
    .action(async (name: string, url: string, o: { ca?: string; token?: boolean; tokenEnv?: string; verify: boolean }) => {
      const entry = runnerEntry(name, url, o.ca);
      if (o.token || o.tokenEnv) {
        const token = tokenText(await tokenFor(name, o.tokenEnv));
        if (!(await tokenTaken(name, entry, token, o.verify))) return;
        addRunner(name, url, o.ca);
        storeToken(name, token);
      } else addRunner(name, url, o.ca);
      process.stderr.write(`runner ${name} → ${url} in ${runnersFile()}; token: ${tokenSource(name)}\n`);
    });
}

/** `rlenv runner login NAME`: the token, once the runner took it. */
function registerLogin(runner: Command): void {
  runner
    .command("login")
    .description("Check a runner's token against it, then store it in the 0600 credentials file (from stdin, or typed with echo off)")
    .argument("<name>", "a runner in runners.yaml")
    .option("--token-env <var>", "take the token from this environment variable instead")
    .option("--no-verify", "store the token without asking the runner whether it takes it (a runner that is down now)")
    .addHelpText(
      "after",
      `
The token is sent to the runner (GET /v1/status) first; nothing is saved when the runner refuses it or
cannot be reached (exit 1), unless --no-verify is given.

Examples:
  ssh gpu1 rlenv runner token | rlenv runner login gpu1
  rlenv runner login gpu1                          (type it; it is not shown)
  rlenv runner login gpu1 --token-env GPU1_TOKEN --no-verify`,
    )
    .action(async (name: string, o: { tokenEnv?: string; verify: boolean }) => {
      const entry = loadRunners()[name];
      if (!entry) throw new Error(`no runner "${name}" in ${runnersFile()}: rlenv runner add ${name} URL first`);
      const token = tokenText(await tokenFor(name, o.tokenEnv));
      if (!(await tokenTaken(name, entry, token, o.verify))) return;
      storeToken(name, token);
      process.stderr.write(`token for ${name} stored in ${credentialsFile()}\n`);
    });
}

/** `rlenv runner add/login/list/remove`: the CLI's runners, as the editor's Add Runner keeps its own. */
export function registerRunnerConfig(runner: Command): void {
  registerAdd(runner);
  registerLogin(runner);
  runner
    .command("list")
    .description("The runners in runners.yaml, and where each one's token comes from (never the token)")
    .option("--json", "print JSON")
    .action((o: { json?: boolean }) => {
      const rows = Object.entries(loadRunners()).map(([name, e]) => ({
        name,
        url: e.url,
        ...(e.ca ? { ca: e.ca } : {}),
        token: tokenSource(name),
      }));
      if (o.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else if (rows.length === 0) process.stderr.write(`no runners in ${runnersFile()}: rlenv runner add NAME URL\n`);
      else for (const r of rows) process.stdout.write(`${r.name}\t${r.url}\ttoken: ${r.token}${r.ca ? `\tca: ${r.ca}` : ""}\n`);
    });
  runner
    .command("remove")
    .description("Remove a runner from runners.yaml and its token from the credentials file")
    .argument("<name>", "the runner")
    .action((name: string) => {
      if (!removeRunner(name)) {
        process.stderr.write(`no runner "${name}" in ${runnersFile()}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`runner ${name} removed\n`);
    });
}
