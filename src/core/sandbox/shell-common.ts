import { EventEmitter } from "node:events";
import type { SandboxShell } from "../model/sandbox";

/** The shell a terminal gets when it names none: bash where the sandbox has it, else sh. */
export const DEFAULT_SHELL = ["/bin/sh", "-c", "if command -v bash >/dev/null 2>&1; then exec bash -i; else exec sh -i; fi"];

/**
 * The output and exit half of a SandboxShell, the same on every backend: the exit is
 * reported once, and a listener that subscribes after it still hears the code.
 */
export class ShellEvents implements Pick<SandboxShell, "onData" | "onExit"> {
  private readonly emitter = new EventEmitter();
  private code: number | null | undefined;

  /** Until the shell's process has ended. */
  get running(): boolean {
    return this.code === undefined;
  }

  data(d: Buffer): void {
    this.emitter.emit("data", d);
  }

  exited(code: number | null): void {
    if (this.code !== undefined) return;
    this.code = code;
    this.emitter.emit("exit", code);
  }

  readonly onData = (listener: (data: Buffer) => void): void => {
    this.emitter.on("data", listener);
  };

  readonly onExit = (listener: (code: number | null) => void): void => {
    if (this.code !== undefined) listener(this.code);
    else this.emitter.once("exit", listener);
  };
}
