import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AuditReport, TaskAudit } from "../../src/core/schema/audit";
import { writeSyntheticRun } from "./synthetic-run";

/** Where the report was written before it moved: every trajectory it names sits under here. */
export const OLD_RUNS = "/nonexistent/old-audit/runs";

const SURVIVOR_DIFF = [
  "--- a/solution.py",
  "+++ b/solution.py",
  "@@ -3,3 +3,3 @@ def mean(xs):",
  "     if not xs:",
  "-        return 0",
  "+        return 1",
  "     return sum(xs) / len(xs)",
].join("\n");

/**
 * An audit folder as `rlenv audit --out` writes one, then moved: audit.json names its trajectories
 * under OLD_RUNS while they lie under the folder's own runs/. Tasks: `fizzbuzz` passes; `stats-mean`
 * fails (a surviving mutant with its diff, a probe finding); `dates` is flaky and its backends
 * differ; `<img src=x>` (markup in an id) was not judged; one trajectory is missing altogether.
 */
export function writeAuditFolder(out: string, envName = "code-demo"): { file: string; report: AuditReport } {
  mkdirSync(out, { recursive: true });
  const envRuns = path.join(out, "runs", envName);
  writeSyntheticRun(envRuns, "oracle-docker", [
    { task: "fizzbuzz", sample: 0, reward: 1 },
    { task: "dates", sample: 0, reward: 1 },
    { task: "dates", sample: 1, reward: 0 },
  ]);
  writeSyntheticRun(envRuns, "probes-docker", [
    { task: "stats-mean--probe-fake-report", sample: 0, reward: 1 },
    { task: "fizzbuzz--probe-fake-report", sample: 0, reward: 0 },
  ]);
  writeSyntheticRun(envRuns, "mutants-docker", [{ task: "stats-mean--m3", sample: 0, reward: 1 }]);
  const old = (sub: string, name: string) => `${OLD_RUNS}/${envName}/${sub}/rollouts/${name}.jsonl`;
  const probe = (task: string, status: "rejected" | "finding", reward: number): TaskAudit["probes"][number] => ({
    probe: "fake-report",
    backend: "docker",
    status,
    reward,
    reason: "submitted",
    trajectory: old("probes-docker", `${task}--probe-fake-report-0`),
  });
  const mutation = (score: number, survivors: NonNullable<TaskAudit["mutation"]>["survivors"]): TaskAudit["mutation"] => ({
    kind: "code",
    reference_reward: 1,
    mutants: 4,
    killed: 4 - survivors.length,
    survived: survivors.length,
    equivalent: 0,
    not_judged: 0,
    score,
    survivors,
    rejected_correct: [],
  });
  const tasks: TaskAudit[] = [
    {
      id: "fizzbuzz",
      ok: true,
      problems: [],
      flakiness: [{ backend: "docker", rewards: [1], flaky: false, not_judged: 0, trajectories: [old("oracle-docker", "fizzbuzz-0")] }],
      parity: null,
      mutation: mutation(1, []),
      probes: [probe("fizzbuzz", "rejected", 0)],
    },
    {
      id: "stats-mean",
      ok: false,
      problems: ["mutation score 0.75 below 0.8", "probe fake-report scored 1 on docker"],
      flakiness: [],
      parity: null,
      mutation: mutation(0.75, [
        {
          id: "stats-mean--m3",
          operator: "return-constant",
          description: "return 1 instead of 0",
          diff: SURVIVOR_DIFF,
          reward: 1,
          trajectory: old("mutants-docker", "stats-mean--m3-0"),
        },
      ]),
      probes: [probe("stats-mean", "finding", 1)],
    },
    {
      id: "dates",
      ok: false,
      problems: ["flaky on docker: rewards 1, 0"],
      flakiness: [
        {
          backend: "docker",
          rewards: [1, 0],
          flaky: true,
          not_judged: 0,
          trajectories: [old("oracle-docker", "dates-0"), old("oracle-docker", "dates-1-gone")],
        },
      ],
      parity: { backends: ["docker", "process"], agree: false, first_difference: { component: "tests", a: 1, b: 0 } },
      mutation: null,
      probes: [],
    },
    {
      id: "<img src=x>",
      ok: true,
      problems: [],
      not_judged: "a judge-graded field with no judge endpoint",
      flakiness: [],
      parity: null,
      mutation: null,
      probes: [],
    },
  ];
  const report: AuditReport = {
    version: 1,
    created: "2026-02-03T04:05:06.000Z",
    ok: false,
    options: { runs: 2, mutants: 4, seed: 0, backends: ["docker"], probes: ["fake-report"] },
    runs_dir: OLD_RUNS,
    environments: [
      {
        name: envName,
        dir: "/work/environments/code-demo",
        domain: "code",
        ok: false,
        min_mutation_score: 0.8,
        tasks,
        notes: ["backend parity not checked: only the docker backend is available here"],
      },
    ],
  };
  const file = path.join(out, "audit.json");
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return { file, report };
}
