import { fileText, isExecutable } from "../model/file-content";
import type { Solution } from "../schema/task";
import { type PlannedTurn, PlannedPolicy } from "./scripted";
import { submitArguments, submitToolName } from "./submit-name";
import type { PolicyPrepareContext, ToolSpec } from "./types";
import { writeTaskFiles } from "../sandbox/task-files";
import type { FileMap } from "../schema/common";

const PATCH_FILE = "/tmp/.rlenv-oracle.patch";
/** Apply a unified diff read from a file: git apply where git exists, else patch -p1. */
const applyPatch = (file: string) => `(git apply --whitespace=nowarn ${file} 2>/dev/null || patch -p1 --forward < ${file})`;

function hasParams(tool: ToolSpec | undefined, ...names: string[]): boolean {
  const props = tool?.parameters.properties;
  return !!props && typeof props === "object" && names.every((n) => n in props);
}

/**
 * Plays the task's reference solution: files, then the patch, then commands, then the
 * tool calls, all in the first turn, and submits the answer in the second. Files go
 * through write_file and commands through bash when the environment offers them;
 * otherwise they are applied straight to the sandbox before the first turn.
 */
export class OraclePolicy extends PlannedPolicy {
  constructor(private readonly solution: Solution | undefined) {
    super("oracle", []);
  }

  async prepare(ctx: PolicyPrepareContext): Promise<void> {
    // A later stage of a multi-stage task brings its own solution; the task's is the first stage's.
    const s = (ctx.stage ? ctx.stage.solution : this.solution) ?? {};
    if (ctx.stage) this.dropUnplayed();
    const byName = new Map(ctx.tools.map((t) => [t.name, t]));
    const writeTool = hasParams(byName.get("write_file"), "path", "content");
    const bashTool = hasParams(byName.get("bash"), "command");
    const calls: PlannedTurn["calls"] = [];
    const direct: Array<(sb: Awaited<ReturnType<PolicyPrepareContext["sandbox"]>>) => Promise<void>> = [];
    const run = async (sb: Awaited<ReturnType<PolicyPrepareContext["sandbox"]>>, cmd: string, stdin?: string) => {
      const r = await sb.exec(cmd, { timeoutMs: ctx.timeoutMs, signal: ctx.signal, ...(stdin !== undefined ? { stdin } : {}) });
      if (r.status !== "ok" || r.exitCode !== 0)
        throw new Error(`oracle: '${cmd}' failed (${r.reason ?? `exit ${r.exitCode}`}): ${r.stderr.slice(0, 500)}`);
    };
    if (s.files && Object.keys(s.files).length > 0) {
      // Text goes through write_file where there is one; bytes (which a tool's text argument
      // cannot carry) are written straight into the sandbox before the first turn.
      // An executable file too: write_file gives a file the default mode.
      const toWrite: FileMap = {};
      for (const [path, content] of Object.entries(s.files)) {
        const text = fileText(content);
        if (text === null || isExecutable(content) || !writeTool) toWrite[path] = content;
        else calls.push({ name: "write_file", arguments: JSON.stringify({ path, content: text }) });
      }
      if (Object.keys(toWrite).length > 0) direct.push((sb) => writeTaskFiles(sb, toWrite));
    }
    if (s.patch) {
      const patch = s.patch;
      if (bashTool)
        calls.push({
          name: "bash",
          arguments: JSON.stringify({
            command: `cat > ${PATCH_FILE} <<'RLENV_ORACLE_PATCH'\n${patch.endsWith("\n") ? patch : `${patch}\n`}RLENV_ORACLE_PATCH\n${applyPatch(PATCH_FILE)}`,
          }),
        });
      else direct.push((sb) => run(sb, `cat > ${PATCH_FILE} && ${applyPatch(PATCH_FILE)}`, patch));
    }
    for (const command of s.commands ?? []) {
      if (bashTool) calls.push({ name: "bash", arguments: JSON.stringify({ command }) });
      else direct.push((sb) => run(sb, command));
    }
    for (const c of s.tool_calls ?? []) calls.push({ name: c.name, arguments: JSON.stringify(c.arguments) });
    if (direct.length > 0) {
      const sb = await ctx.sandbox();
      for (const step of direct) await step(sb);
    }
    if (calls.length > 0) this.plan.push({ content: null, calls });
    const submit = submitToolName(ctx.tools);
    this.plan.push({ content: null, calls: [{ name: submit, arguments: JSON.stringify(submitArguments(submit, s.answer)) }] });
  }
}
