import { StringDecoder } from "node:string_decoder";
import * as vscode from "vscode";
import type { Sandbox, SandboxShell } from "../../core/model/sandbox";

/**
 * A VS Code terminal over a shell in a rollout's sandbox. VS Code drives it: open with the
 * terminal's size, keystrokes in, resizes, close when the user kills the terminal. The
 * shell's bytes are decoded as a stream so a UTF-8 character split across chunks survives.
 */
export class SandboxPseudoterminal implements vscode.Pseudoterminal {
  private readonly written = new vscode.EventEmitter<string>();
  private readonly closed = new vscode.EventEmitter<number | undefined>();
  readonly onDidWrite = this.written.event;
  readonly onDidClose = this.closed.event;
  private shell: SandboxShell | undefined;
  /** Keystrokes typed before the shell started. */
  private early: string[] = [];
  private ended = false;
  private dims: vscode.TerminalDimensions | undefined;

  constructor(
    private readonly sandbox: () => Promise<Sandbox>,
    private readonly label: string,
  ) {}

  open(dims: vscode.TerminalDimensions | undefined): void {
    this.dims = dims;
    void this.start();
  }

  private async start(): Promise<void> {
    try {
      const sb = await this.sandbox();
      if (!sb.shell) throw new Error(`the ${sb.backend} sandbox backend offers no interactive shell`);
      const dims = this.dims;
      const shell = await sb.shell({ ...(dims ? { cols: dims.columns, rows: dims.rows } : {}) });
      if (this.ended) {
        await shell.close();
        return;
      }
      this.shell = shell;
      if (this.dims && this.dims !== dims) shell.resize(this.dims.columns, this.dims.rows);
      const decoder = new StringDecoder("utf8");
      shell.onData((d) => this.written.fire(decoder.write(d)));
      shell.onExit((code) => {
        const rest = decoder.end();
        if (rest) this.written.fire(rest);
        if (this.ended) return;
        this.ended = true;
        this.written.fire(
          `\r\n[the sandbox shell ended${code === null ? "" : ` with exit code ${code}`}; the sandbox of ${this.label} is still up]\r\n`,
        );
        this.closed.fire(code ?? undefined);
      });
      for (const data of this.early.splice(0)) shell.write(data);
    } catch (e) {
      this.ended = true;
      this.written.fire(`Could not open a shell in the sandbox of ${this.label}: ${e instanceof Error ? e.message : String(e)}\r\n`);
    }
  }

  handleInput(data: string): void {
    if (this.shell) this.shell.write(data);
    else if (!this.ended) this.early.push(data);
  }

  setDimensions(dims: vscode.TerminalDimensions): void {
    if (this.shell) this.shell.resize(dims.columns, dims.rows);
    else this.dims = dims; // the shell starts with the latest size
  }

  close(): void {
    // The user closed the terminal: end the shell's processes, never the sandbox.
    this.ended = true;
    void this.shell?.close();
  }
}
