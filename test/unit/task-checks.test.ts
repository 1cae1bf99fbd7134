import assert from "node:assert/strict";
import { test } from "node:test";
import { domainTaskProblems, findDomain } from "../../src/core/domains/registry";
import { DOMAINS_WITH_TASK_CHECKS } from "../../src/core/domains/task-checks";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { Domain } from "../../src/core/schema/common";
import { makeEnvDir } from "../support/tmp-env";

test("DOMAINS_WITH_TASK_CHECKS names exactly the domains whose plugin has checkTasks", async () => {
  // The extension loads its engine bundle only for these; a domain missing here would go unchecked in the editor.
  for (const domain of Domain.options) {
    const plugin = await findDomain(domain);
    assert.equal(DOMAINS_WITH_TASK_CHECKS.has(domain), typeof plugin?.checkTasks === "function", domain);
  }
});

test("domainTaskProblems: the domain's problems; a check that throws becomes one problem on the manifest", async () => {
  const manifest = "name: t\ndomain: scene3d\nscene:\n  assets: assets\ntasks: tasks.jsonl\nreward:\n  - type: scene\n";
  const task = {
    id: "dup",
    prompt: "p",
    target: {
      initial: [
        { name: "t", kind: "box" },
        { name: "t", kind: "box" },
      ],
      checks: [{ check: "exists", objects: ["t"] }],
    },
  };
  const { dir, cleanup } = makeEnvDir({ "environment.yaml": manifest, "tasks.jsonl": JSON.stringify(task), "assets/.keep": "" });
  try {
    const { env } = loadEnvironment(dir);
    assert.ok(env);
    const problems = await domainTaskProblems(env);
    assert.deepEqual(
      problems.map((p) => [p.path, p.line]),
      [["tasks[0].target.initial[1]", 1]],
    );
    // A task list the check cannot walk (tasks replaced by something that throws on iteration).
    const broken = {
      ...env,
      get tasks(): never {
        throw new Error("boom");
      },
    };
    const [p, ...rest] = await domainTaskProblems(broken);
    assert.deepEqual(rest, []);
    assert.equal(p?.path, "domain");
    assert.match(p?.file ?? "", /environment\.yaml$/);
    assert.equal(p?.message, "the scene3d domain's task check failed: boom");
  } finally {
    cleanup();
  }
});
