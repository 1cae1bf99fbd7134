import type { ToolDefinition } from "../../types";
import { stringArg, toolError } from "../args";
import { knownText, noteChange } from "../file-changes";
import { readWorkdirFile, WorkdirWriteError, writeWorkdirFiles } from "../sandbox-files";
import { resolveInWorkdir } from "../workdir-path";

export const writeFileTool: ToolDefinition = {
  name: "write_file",
  description: "Create or overwrite a file in the workdir with the given text. Parent folders are created.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workdir" },
      content: { type: "string", description: "The whole new text of the file" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  async run(args, ctx) {
    const p = stringArg(args, "path");
    if (!p.ok) return toolError(p.message);
    const content = stringArg(args, "content", { allowEmpty: true });
    if (!content.ok) return toolError(content.message);
    const text = content.value ?? "";
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, p.value);
    if (!where.ok) return toolError(where.message);
    let before = knownText(ctx, where.rel);
    if (before === undefined) {
      const prior = await readWorkdirFile(sandbox, where.rel, ctx.timeoutMs, ctx.signal);
      before = prior.ok ? prior.text : null;
    }
    try {
      await writeWorkdirFiles(sandbox, { [where.rel]: text }, ctx.timeoutMs, ctx.signal);
    } catch (e) {
      if (e instanceof WorkdirWriteError) return toolError(e.message);
      throw e;
    }
    const diff = noteChange(ctx, where.rel, before, text);
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return {
      output: `${before === null ? "created" : "wrote"} ${where.rel} (${lines} line${lines === 1 ? "" : "s"}, ${Buffer.byteLength(text)} bytes)`,
      ...(before === text ? {} : { artifacts: { diff: [diff] } }),
    };
  },
};
