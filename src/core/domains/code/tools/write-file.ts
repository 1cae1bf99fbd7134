import { defineTool } from "../../define-tool";
import { ToolError } from "../../../model/errors";
import { codeArgs, stringArg } from "../args";
import { knownText, noteChange } from "../file-changes";
import { readWorkdirFile, WorkdirWriteError, writeWorkdirFiles } from "../sandbox-files";
import { resolveInWorkdir } from "../workdir-path";

export const writeFileTool = defineTool({
  name: "write_file",
  description: "Create or overwrite a file in the workdir with the given text. Parent folders are created.",
  args: codeArgs({
    path: stringArg().describe("File path, relative to the workdir"),
    content: stringArg({ allowEmpty: true }).describe("The whole new text of the file"),
  }),
  errors: "code",
  async run(args, ctx) {
    const text = args.content;
    const sandbox = await ctx.sandbox();
    const where = resolveInWorkdir(sandbox.workdir, args.path);
    if (!where.ok) throw new ToolError(where.message);
    let before = knownText(ctx, where.rel);
    if (before === undefined) {
      const prior = await readWorkdirFile(sandbox, where.rel, ctx.timeoutMs, ctx.signal);
      before = prior.ok ? prior.text : null;
    }
    try {
      await writeWorkdirFiles(sandbox, { [where.rel]: text }, ctx.timeoutMs, ctx.signal);
    } catch (e) {
      if (e instanceof WorkdirWriteError) throw new ToolError(e.message);
      throw e;
    }
    const diff = noteChange(ctx, where.rel, before, text);
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return {
      output: `${before === null ? "created" : "wrote"} ${where.rel} (${lines} line${lines === 1 ? "" : "s"}, ${Buffer.byteLength(text)} bytes)`,
      ...(before === text ? {} : { artifacts: { diff: [diff] } }),
    };
  },
});
