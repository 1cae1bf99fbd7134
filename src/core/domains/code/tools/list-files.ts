import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import { codeArgs, intArg, optionalStringArg } from "../args";
import { resolveInWorkdir } from "../workdir-path";

const MAX_ENTRIES = 1000;

export const listFilesTool = defineTool({
  name: "list_files",
  description:
    "List files and folders (folders end in '/') under a path in the workdir, down to a depth (default 3). Caches such as __pycache__ and .git are left out.",
  args: codeArgs({
    path: optionalStringArg().describe("Folder relative to the workdir; default: the workdir itself"),
    // The model is told 20 at most; a deeper request is cut to 20 rather than refused.
    depth: intArg(1).meta({ maximum: 20, description: "How many levels to descend (default 3)" }),
  }),
  errors: "code",
  async run(args, ctx) {
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, args.path ?? ".", { allowRoot: true });
    if (!where.ok) throw new ToolError(where.message);
    const d = String(Math.min(args.depth ?? 3, 20));
    // GNU find: prune caches, print folders with a trailing slash, paths relative to the start.
    const argv = [
      "find",
      where.rel,
      "-mindepth",
      "1",
      "-maxdepth",
      d,
      "(",
      "-name",
      "__pycache__",
      "-o",
      "-name",
      ".git",
      "-o",
      "-name",
      ".pytest_cache",
      ")",
      "-prune",
      "-o",
      "-type",
      "d",
      "-printf",
      "%P/\\n",
      "-o",
      "-printf",
      "%P\\n",
    ];
    const r = await sandbox.exec(argv, { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    if (r.status !== "ok" || r.exitCode !== 0) {
      if (/No such file or directory/.test(r.stderr)) throw new ToolError(`no folder '${where.rel}' in the workdir`);
      throw new ToolError(`listing '${where.rel}' failed: ${r.reason ?? r.stderr.trim()}`);
    }
    const entries = r.stdout
      .split("\n")
      .filter((l) => l !== "" && l !== "/")
      .sort();
    if (entries.length === 0) {
      const probe = await sandbox.exec(["test", "-d", where.rel], { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
      if (probe.exitCode !== 0) throw new ToolError(`'${where.rel}' is a file, not a folder`);
      return { output: `(${where.rel === "." ? "the workdir" : where.rel} is empty)` };
    }
    const shown = entries.slice(0, MAX_ENTRIES);
    const more = entries.length > MAX_ENTRIES ? `\n[${entries.length - MAX_ENTRIES} more entries not shown; list a sub-folder]` : "";
    return { output: shown.join("\n") + more };
  },
});
