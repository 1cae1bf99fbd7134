import type { VerifierConfig } from "../../schema/verifier";
import type { ExecGraderContext } from "../verifier-entry";

type TestsConfig = Extract<VerifierConfig, { type: "tests" }>;

/** A tests verifier in an exported Harbor task's test.sh: its stdio cases by stdio_runner.py, else its command's exit status. */
export function testsHarborLines(v: TestsConfig, ctx: ExecGraderContext): string[] | null {
  const { task, index: i } = ctx;
  const name = `score_${i}`;
  if (v.format === "stdio") {
    const program = v.program ?? task.tests?.command ?? v.command;
    if (!program || !task.tests?.cases?.length) return null;
    ctx.addFile(`stdio_${i}.json`, Buffer.from(JSON.stringify({ program, cases: task.tests.cases, mode: v.mode })));
    const runner = ctx.addProgram("stdio_runner.py");
    return [`${name}=$(python3 ${runner} /tests/stdio_${i}.json | tee -a /logs/verifier/cases.txt | tail -n 1)`];
  }
  const command = task.tests?.command ?? v.command;
  if (!command) return null;
  // The pass/fail of the whole suite, from its exit status (the fraction of a report is rlenv's own parsing).
  return [`if ( ${command} ); then ${name}=1; else ${name}=0; fi`];
}
