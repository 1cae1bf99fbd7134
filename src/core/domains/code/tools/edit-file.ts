import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import { boolArg, codeArgs, stringArg } from "../args";
import { noteChange } from "../file-changes";
import { readWorkdirFile, WorkdirWriteError, writeWorkdirFiles } from "../sandbox-files";
import { resolveInWorkdir } from "../workdir-path";

/** Lines (1-based) where each occurrence of `needle` starts, for an error that helps the agent pick one. */
function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) lines.push(text.slice(0, i).split("\n").length);
  return lines;
}

export const editFileTool = defineTool({
  name: "edit_file",
  description:
    "Replace an exact string in a file. old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all is true. Whitespace and indentation must match exactly.",
  args: codeArgs({
    path: stringArg().describe("File path, relative to the workdir"),
    old_string: stringArg().describe("The exact text to replace"),
    new_string: stringArg({ allowEmpty: true }).describe("The text to put in its place"),
    replace_all: boolArg().describe("Replace every occurrence instead of requiring exactly one"),
  }),
  errors: "code",
  async run(args, ctx) {
    const needle = args.old_string;
    const replacement = args.new_string;
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, args.path);
    if (!where.ok) throw new ToolError(where.message);
    const file = await readWorkdirFile(sandbox, where.rel, ctx.timeoutMs, ctx.signal);
    if (!file.ok) throw new ToolError(file.missing ? `${file.message}; use write_file to create it` : file.message);
    const before = file.text;
    const at = occurrenceLines(before, needle);
    if (at.length === 0)
      throw new ToolError(`old_string was not found in '${where.rel}' (it must match exactly, including whitespace and indentation)`);
    if (at.length > 1 && !args.replace_all) {
      throw new ToolError(
        `old_string occurs ${at.length} times in '${where.rel}' (lines ${at.join(", ")}); include more surrounding text to make it unique, or set replace_all`,
      );
    }
    if (needle === replacement) throw new ToolError("old_string and new_string are the same: nothing would change");
    const after = args.replace_all ? before.split(needle).join(replacement) : before.replace(needle, () => replacement);
    try {
      await writeWorkdirFiles(sandbox, { [where.rel]: after }, ctx.timeoutMs, ctx.signal);
    } catch (e) {
      if (e instanceof WorkdirWriteError) throw new ToolError(e.message);
      throw e;
    }
    const diff = noteChange(ctx, where.rel, before, after);
    return {
      output: `edited ${where.rel}: replaced ${at.length} occurrence${at.length === 1 ? "" : "s"} at line${at.length === 1 ? "" : "s"} ${at.join(", ")}`,
      artifacts: { diff: [diff] },
    };
  },
});
