import path from "node:path";
import * as vscode from "vscode";
import type { LiveRollouts } from "../debug/live-rollouts";
import { checkRelative, listSandbox, type SandboxEntry } from "./listing";

export const SANDBOX_SCHEME = "rlenv-sandbox";

/** rlenv-sandbox://<rollout id>/<path in the workdir>: which live rollout, which file. */
export function sandboxUri(rolloutId: string, rel: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SANDBOX_SCHEME, authority: encodeURIComponent(rolloutId), path: `/${rel}` });
}

function parts(uri: vscode.Uri): { id: string; rel: string } {
  return { id: decodeURIComponent(uri.authority), rel: checkRelative(uri.path) };
}

const FILE_TYPE: Record<SandboxEntry["kind"], vscode.FileType> = {
  file: vscode.FileType.File,
  dir: vscode.FileType.Directory,
  link: vscode.FileType.SymbolicLink,
  other: vscode.FileType.Unknown,
};

/**
 * The workdir of a debugged rollout's sandbox, read-only (registered with isReadonly): the
 * user looks at what the agent left, changes go through the sandbox terminal. Reads go
 * through the sandbox itself (find for listings, readFiles for content), so they show its
 * state now; `refresh` tells open editors to re-read after a step.
 */
export class SandboxFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly live: LiveRollouts) {}

  private async sandbox(uri: vscode.Uri) {
    const { id, rel } = parts(uri);
    const r = this.live.all().find((x) => x.id === id);
    if (!r) throw vscode.FileSystemError.Unavailable(`${uri.toString()}: that rollout is no longer being debugged (its sandbox is closed)`);
    return { sb: await r.sandbox(), rel };
  }

  /** Tells open documents of these rollouts (all when none given) that their files may have changed. */
  refresh(rolloutId?: string): void {
    // Only rollouts still live: a closed sandbox's documents keep what they last showed.
    const live = new Set(this.live.all().map((r) => r.id));
    const open = vscode.workspace.textDocuments.filter(
      (d) => d.uri.scheme === SANDBOX_SCHEME && live.has(parts(d.uri).id) && (!rolloutId || parts(d.uri).id === rolloutId),
    );
    if (open.length > 0) this.changed.fire(open.map((d) => ({ type: vscode.FileChangeType.Changed, uri: d.uri })));
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { sb, rel } = await this.sandbox(uri);
    const [e] = await listSandbox(sb, rel, { self: true });
    if (!e) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: FILE_TYPE[e.kind], ctime: e.mtimeMs, mtime: e.mtimeMs, size: e.size, permissions: vscode.FilePermission.Readonly };
  }

  async readDirectory(uri: vscode.Uri): Promise<[string, vscode.FileType][]> {
    const { sb, rel } = await this.sandbox(uri);
    return (await listSandbox(sb, rel)).map((e) => [path.posix.basename(e.path), FILE_TYPE[e.kind]]);
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { sb, rel } = await this.sandbox(uri);
    const content = (await sb.readFiles([rel]))[rel];
    if (!content) throw vscode.FileSystemError.FileNotFound(uri);
    return content;
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => {});
  }

  private readonly refused = (uri: vscode.Uri) =>
    vscode.FileSystemError.NoPermissions(`${uri.toString()}: the sandbox files are read-only here; change them in the sandbox terminal`);
  createDirectory(uri: vscode.Uri): never {
    throw this.refused(uri);
  }
  writeFile(uri: vscode.Uri): never {
    throw this.refused(uri);
  }
  delete(uri: vscode.Uri): never {
    throw this.refused(uri);
  }
  rename(uri: vscode.Uri): never {
    throw this.refused(uri);
  }
}
