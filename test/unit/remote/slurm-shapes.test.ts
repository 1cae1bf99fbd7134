import assert from "node:assert/strict";
import { test } from "node:test";
import { jobDescription, readNode, readTask, waitStatus, wrappedShapes } from "../../../src/core/remote/executors/slurm-shapes";

const submit = {
  name: "rlenv-j1",
  script: "#!/bin/bash\ntrue\n",
  cwd: "/shared/j1",
  stdout: "/shared/j1/%a.out",
  array: "0-3",
  partition: "gpu",
  gres: "gpu:1",
  timeLimitMin: 90,
  hold: true,
  environment: { RLENV_JOB: "j1", PATH: "/usr/bin" },
};

test("v0.0.38's job description: numbers, a map environment, gres", () => {
  assert.deepEqual(jobDescription(submit, "v0.0.38"), {
    name: "rlenv-j1",
    current_working_directory: "/shared/j1",
    standard_output: "/shared/j1/%a.out",
    environment: { RLENV_JOB: "j1", PATH: "/usr/bin" },
    array: "0-3",
    partition: "gpu",
    gres: "gpu:1",
    time_limit: 90,
    hold: true,
  });
});

test("v0.0.39+ (current Slurm's v0.0.42–44): K=V environment, a wrapped time limit, tres_per_node", () => {
  const job = jobDescription(submit, "v0.0.42");
  assert.deepEqual(job.environment, ["RLENV_JOB=j1", "PATH=/usr/bin"]);
  assert.deepEqual(job.time_limit, { set: true, infinite: false, number: 90 });
  assert.equal(job.tres_per_node, "gres/gpu:1");
  assert.equal("gres" in job, false);
  assert.throws(() => wrappedShapes("0.0.42"), /looks like v0\.0\.42/);
});

test("a job record reads the same from either shape", () => {
  const old = {
    job_id: 41,
    array_job_id: 40,
    array_task_id: 1,
    job_state: "FAILED",
    exit_code: 256 * 3,
    batch_host: "node1",
  };
  const current = {
    job_id: 41,
    array_job_id: { set: true, infinite: false, number: 40 },
    array_task_id: { set: true, infinite: false, number: 1 },
    job_state: ["FAILED"],
    exit_code: {
      status: ["NON_ZERO_EXIT"],
      return_code: { set: true, infinite: false, number: 3 },
      signal: { id: { set: false, infinite: false, number: 0 }, name: "" },
    },
    batch_host: "node1",
  };
  const want = { jobId: 41, arrayJobId: 40, arrayTaskId: 1, state: "FAILED", exitCode: 3 << 8, node: "node1" };
  assert.deepEqual(readTask(old), want);
  assert.deepEqual(readTask(current), want);
  // A still-folded pending array record: no task id (unset), its range as a string.
  assert.deepEqual(
    readTask({
      job_id: 50,
      array_job_id: { set: true, number: 50 },
      array_task_id: { set: false, number: 0 },
      array_task_string: "0-3",
      job_state: ["PENDING"],
    }),
    { jobId: 50, arrayJobId: 50, arrayTaskId: null, arrayTaskString: "0-3", state: "PENDING", exitCode: 0 },
  );
});

test("a signal death keeps its signal in the wait status", () => {
  assert.equal(waitStatus({ return_code: { set: true, number: 0 }, signal: { id: { set: true, number: 9 }, name: "KILL" } }), 9);
});

test("a node reads the same from either shape: state and flags joined as sinfo shows them", () => {
  assert.deepEqual(readNode({ name: "n1", state: "idle", state_flags: ["DRAIN"], partitions: ["debug"], cpus: 4, alloc_cpus: 0 }), {
    name: "n1",
    state: "idle+drain",
    partitions: ["debug"],
    cpus: 4,
    allocCpus: 0,
  });
  assert.deepEqual(readNode({ name: "n1", state: ["IDLE", "DRAIN"], partitions: ["debug"], cpus: 4, alloc_cpus: 0 }).state, "idle+drain");
});
