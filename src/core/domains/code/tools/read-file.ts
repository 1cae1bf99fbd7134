import type { ToolDefinition } from "../../types";
import { intArg, stringArg, toolError } from "../args";
import { readWorkdirFile } from "../sandbox-files";
import { resolveInWorkdir } from "../workdir-path";

export const readFileTool: ToolDefinition = {
  name: "read_file",
  description:
    "Read a text file from the workdir. Give start_line and end_line (1-based, inclusive) to read part of a long file; the reply then says which lines it holds.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workdir" },
      start_line: { type: "integer", minimum: 1, description: "First line to return (1-based)" },
      end_line: { type: "integer", minimum: 1, description: "Last line to return (inclusive)" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const p = stringArg(args, "path");
    if (!p.ok) return toolError(p.message);
    const start = intArg(args, "start_line", 1);
    if (!start.ok) return toolError(start.message);
    const end = intArg(args, "end_line", 1);
    if (!end.ok) return toolError(end.message);
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, p.value);
    if (!where.ok) return toolError(where.message);
    const file = await readWorkdirFile(sandbox, where.rel, ctx.timeoutMs, ctx.signal);
    if (!file.ok) return toolError(file.missing ? `${file.message} (list_files shows what is there)` : file.message);
    const text = file.text;
    if (text.includes("\0"))
      return toolError(`'${where.rel}' is a binary file (${Buffer.byteLength(text)} bytes); read_file shows text only`);
    if (start.value === undefined && end.value === undefined)
      return { output: file.truncated ? `${text}\n[file cut at the sandbox's output limit; read it by line ranges]` : text };
    const lines = text.split("\n");
    if (lines.length > 1 && lines.at(-1) === "") lines.pop();
    const from = start.value ?? 1;
    const to = Math.min(end.value ?? lines.length, lines.length);
    if (from > lines.length) return toolError(`start_line ${from} is past the end of '${where.rel}' (${lines.length} lines)`);
    if (to < from) return toolError(`end_line ${to} is before start_line ${from}`);
    return { output: `[${where.rel}: lines ${from}-${to} of ${lines.length}]\n${lines.slice(from - 1, to).join("\n")}` };
  },
};
