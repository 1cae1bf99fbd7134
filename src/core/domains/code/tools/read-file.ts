import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import { codeArgs, intArg, stringArg } from "../args";
import { readWorkdirFile } from "../sandbox-files";
import { resolveInWorkdir } from "../workdir-path";

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file from the workdir. Give start_line and end_line (1-based, inclusive) to read part of a long file; the reply then says which lines it holds.",
  args: codeArgs({
    path: stringArg().describe("File path, relative to the workdir"),
    start_line: intArg(1).describe("First line to return (1-based)"),
    end_line: intArg(1).describe("Last line to return (inclusive)"),
  }),
  errors: "code",
  async run(args, ctx) {
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, args.path);
    if (!where.ok) throw new ToolError(where.message);
    const file = await readWorkdirFile(sandbox, where.rel, ctx.timeoutMs, ctx.signal);
    if (!file.ok) throw new ToolError(file.missing ? `${file.message} (list_files shows what is there)` : file.message);
    const text = file.text;
    if (text.includes("\0"))
      throw new ToolError(`'${where.rel}' is a binary file (${Buffer.byteLength(text)} bytes); read_file shows text only`);
    if (args.start_line === undefined && args.end_line === undefined)
      return { output: file.truncated ? `${text}\n[file cut at the sandbox's output limit; read it by line ranges]` : text };
    const lines = text.split("\n");
    if (lines.length > 1 && lines.at(-1) === "") lines.pop();
    const from = args.start_line ?? 1;
    const to = Math.min(args.end_line ?? lines.length, lines.length);
    if (from > lines.length) throw new ToolError(`start_line ${from} is past the end of '${where.rel}' (${lines.length} lines)`);
    if (to < from) throw new ToolError(`end_line ${to} is before start_line ${from}`);
    return { output: `[${where.rel}: lines ${from}-${to} of ${lines.length}]\n${lines.slice(from - 1, to).join("\n")}` };
  },
});
