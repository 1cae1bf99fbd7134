import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeMember, describePool } from "../../src/core/fleet/member-line";

describe("pool member lines (Runners view)", () => {
  it("shows an up member's load, GPUs where it has them, else CPUs", () => {
    const status = {
      ok: true,
      version: "v",
      time: 0,
      slots: { total: 2, running: 1, free: 1 },
      queue: 3,
      gpus: { count: 8, idle: 5 },
      cpus: 64,
    };
    assert.deepEqual(describeMember({ name: "a", url: "u", state: "up", status }), {
      state: "up",
      detail: "1/2 jobs · 3 queued · 5/8 GPUs idle",
    });
    assert.equal(
      describeMember({ name: "a", url: "u", state: "up", status: { ...status, gpus: { count: 0, idle: 0 } } }).detail,
      "1/2 jobs · 3 queued · 64 CPUs",
    );
  });
  it("shows why a member is down and how long since it answered", () => {
    assert.deepEqual(describeMember({ name: "b", url: "u", state: "down", last_error: "connect ECONNREFUSED", last_ok: 1_000 }, 31_000), {
      state: "down",
      detail: "connect ECONNREFUSED, last answer 30 s ago",
    });
    assert.equal(
      describePool([
        { name: "a", url: "u", state: "up" },
        { name: "b", url: "u", state: "down" },
      ]),
      "1/2 up",
    );
  });
});
