import * as vscode from "vscode";
import type { PolicyConfig, RunConfig } from "../../core/schema/run";

const SECRET_API_KEY = "rlenv.policy.apiKey";

/** Typed access to the `rlenv.*` settings and the API key in SecretStorage. */
export class Settings {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private get config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration("rlenv");
  }

  /** The configured OpenAI-compatible policy (Rollout profile), or why it cannot run. */
  policy(): { ok: true; policy: PolicyConfig } | { ok: false; reason: string } {
    const c = this.config;
    const model = c.get<string>("policy.model", "").trim();
    const baseUrl = c.get<string>("policy.baseUrl", "").trim();
    if (!model) return { ok: false, reason: "no policy model is set (setting rlenv.policy.model)" };
    if (!baseUrl) return { ok: false, reason: "no policy base URL is set (setting rlenv.policy.baseUrl)" };
    const maxTokens = c.get<number | null>("policy.maxTokens", null);
    return {
      ok: true,
      policy: {
        kind: "openai",
        model,
        base_url: baseUrl,
        temperature: c.get<number>("policy.temperature", 0.7),
        top_p: c.get<number>("policy.topP", 1),
        ...(typeof maxTokens === "number" && maxTokens > 0 ? { max_tokens: Math.floor(maxTokens) } : {}),
      },
    };
  }

  /** A short label for the status bar: the model, or "no policy". */
  policyLabel(): string {
    return this.config.get<string>("policy.model", "").trim() || "no policy";
  }

  sandboxBackend(): RunConfig["sandbox"] {
    const b = this.config.get<string>("sandbox.backend", "auto");
    return b === "docker" || b === "process" ? b : "auto";
  }

  concurrency(): number {
    return Math.max(1, Math.floor(this.config.get<number>("concurrency", 4)));
  }

  samples(): number {
    return Math.max(1, Math.floor(this.config.get<number>("rollout.samples", 1)));
  }

  passThreshold(): number {
    return this.config.get<number>("rollout.passThreshold", 1);
  }

  /** Absolute runs folder of a workspace folder (relative settings resolve against it). */
  runsDir(folder: vscode.WorkspaceFolder): vscode.Uri {
    const rel = this.config.get<string>("runsFolder", "runs").trim() || "runs";
    return rel.startsWith("/") ? vscode.Uri.file(rel) : vscode.Uri.joinPath(folder.uri, rel);
  }

  apiKey(): Thenable<string | undefined> {
    return this.secrets.get(SECRET_API_KEY);
  }

  setApiKey(key: string): Thenable<void> {
    return this.secrets.store(SECRET_API_KEY, key);
  }

  clearApiKey(): Thenable<void> {
    return this.secrets.delete(SECRET_API_KEY);
  }
}
