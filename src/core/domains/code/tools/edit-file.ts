import type { ToolDefinition } from "../../types";
import { boolArg, stringArg, toolError } from "../args";
import { noteChange } from "../file-changes";
import { readWorkdirFile, WorkdirWriteError, writeWorkdirFiles } from "../sandbox-files";
import { resolveInWorkdir } from "../workdir-path";

/** Lines (1-based) where each occurrence of `needle` starts, for an error that helps the agent pick one. */
function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) lines.push(text.slice(0, i).split("\n").length);
  return lines;
}

export const editFileTool: ToolDefinition = {
  name: "edit_file",
  description:
    "Replace an exact string in a file. old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all is true. Whitespace and indentation must match exactly.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workdir" },
      old_string: { type: "string", description: "The exact text to replace" },
      new_string: { type: "string", description: "The text to put in its place" },
      replace_all: { type: "boolean", description: "Replace every occurrence instead of requiring exactly one" },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const p = stringArg(args, "path");
    if (!p.ok) return toolError(p.message);
    const oldS = stringArg(args, "old_string");
    if (!oldS.ok) return toolError(oldS.message);
    const newS = stringArg(args, "new_string", { allowEmpty: true });
    if (!newS.ok) return toolError(newS.message);
    const all = boolArg(args, "replace_all");
    if (!all.ok) return toolError(all.message);
    const needle = oldS.value ?? "";
    const replacement = newS.value ?? "";
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, p.value);
    if (!where.ok) return toolError(where.message);
    const file = await readWorkdirFile(sandbox, where.rel, ctx.timeoutMs, ctx.signal);
    if (!file.ok) return toolError(file.missing ? `${file.message}; use write_file to create it` : file.message);
    const before = file.text;
    const at = occurrenceLines(before, needle);
    if (at.length === 0)
      return toolError(`old_string was not found in '${where.rel}' (it must match exactly, including whitespace and indentation)`);
    if (at.length > 1 && !all.value) {
      return toolError(
        `old_string occurs ${at.length} times in '${where.rel}' (lines ${at.join(", ")}); include more surrounding text to make it unique, or set replace_all`,
      );
    }
    if (needle === replacement) return toolError("old_string and new_string are the same: nothing would change");
    const after = all.value ? before.split(needle).join(replacement) : before.replace(needle, () => replacement);
    try {
      await writeWorkdirFiles(sandbox, { [where.rel]: after }, ctx.timeoutMs, ctx.signal);
    } catch (e) {
      if (e instanceof WorkdirWriteError) return toolError(e.message);
      throw e;
    }
    const diff = noteChange(ctx, where.rel, before, after);
    return {
      output: `edited ${where.rel}: replaced ${at.length} occurrence${at.length === 1 ? "" : "s"} at line${at.length === 1 ? "" : "s"} ${at.join(", ")}`,
      artifacts: { diff: [diff] },
    };
  },
};
