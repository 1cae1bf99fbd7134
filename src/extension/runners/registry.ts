import * as vscode from "vscode";
import { RunnerClient } from "../../core/remote/client/client";
import { readPools } from "../../core/fleet/pool-config";
import { loadRunners, loadToken, type RunnerEntry } from "../../core/remote/client/client-config";

export interface RunnerInfo extends RunnerEntry {
  name: string;
  /** Where it is configured: the `rlenv.runners` setting or the CLI's runners.yaml. */
  source: "settings" | "runners.yaml";
}

const SECRET_PREFIX = "rlenv.runnerToken.";

/**
 * The runners the editor knows: the `rlenv.runners` setting plus the CLI's runners.yaml.
 * Tokens live in SecretStorage (else the CLI's env variable / 0600 credentials file);
 * they are used here, in the extension host, and never reach a webview.
 */
export class RunnerRegistry implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when runners or their tokens change. */
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[];

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subs = [
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("rlenv.runners")) this.changed.fire();
      }),
      secrets.onDidChange((e) => {
        if (e.key.startsWith(SECRET_PREFIX)) this.changed.fire();
      }),
    ];
  }

  list(): RunnerInfo[] {
    const fromSettings = vscode.workspace.getConfiguration("rlenv").get<Array<{ name?: string; url?: string; ca?: string }>>("runners", []);
    const out: RunnerInfo[] = [];
    for (const r of fromSettings) {
      if (r.name && r.url) out.push({ name: r.name, url: r.url, ...(r.ca ? { ca: r.ca } : {}), source: "settings" });
    }
    let yaml: Record<string, RunnerEntry> = {};
    try {
      yaml = loadRunners();
    } catch {
      // a broken runners.yaml is the CLI's to report; the settings still work
    }
    for (const [name, entry] of Object.entries(yaml))
      if (!out.some((r) => r.name === name)) out.push({ name, ...entry, source: "runners.yaml" });
    return out;
  }

  /** The pools of the CLI's runners.yaml (`pools:`), each naming its member runners; none when the file is broken. */
  pools(): Array<{ name: string; members: string[] }> {
    try {
      return Object.entries(readPools().pools).map(([name, p]) => ({ name, members: p.members }));
    } catch {
      // a broken runners.yaml is the CLI's to report (with its line); the runners still show
      return [];
    }
  }

  get(name: string): RunnerInfo | undefined {
    return this.list().find((r) => r.name === name);
  }

  /** Adds (or replaces) a runner in the user settings and stores its token as a secret. */
  async add(name: string, url: string, token: string): Promise<void> {
    const cfg = vscode.workspace.getConfiguration("rlenv");
    const current = cfg.get<Array<{ name: string; url: string }>>("runners", []).filter((r) => r.name !== name);
    await cfg.update("runners", [...current, { name, url }], vscode.ConfigurationTarget.Global);
    await this.secrets.store(SECRET_PREFIX + name, token);
  }

  async remove(name: string): Promise<void> {
    const cfg = vscode.workspace.getConfiguration("rlenv");
    await cfg.update(
      "runners",
      cfg.get<Array<{ name: string }>>("runners", []).filter((r) => r.name !== name),
      vscode.ConfigurationTarget.Global,
    );
    await this.secrets.delete(SECRET_PREFIX + name);
  }

  async token(name: string): Promise<string | undefined> {
    const secret = await this.secrets.get(SECRET_PREFIX + name);
    if (secret) return secret;
    try {
      return loadToken(name);
    } catch {
      return undefined;
    }
  }

  async client(name: string): Promise<RunnerClient> {
    const r = this.get(name);
    if (!r) throw new Error(`no runner "${name}" (add one with "RL Env Studio: Add Runner…")`);
    const token = await this.token(name);
    if (!token) throw new Error(`no token for runner "${name}": run "RL Env Studio: Add Runner…" again to store one`);
    return new RunnerClient({ url: r.url, token, ...(r.ca ? { ca: r.ca } : {}) });
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}
