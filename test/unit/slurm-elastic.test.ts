import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WorkUnit } from "../../src/core/remote/api";
import type { SlurmNode } from "../../src/core/remote/executors/slurm-client";
import { nodesToExclude, nodesWithRoom, shardsToAdd } from "../../src/core/remote/executors/slurm-elastic";

const node = (name: string, state: string, allocCpus = 0, partitions = ["gpu"]): SlurmNode => ({
  name,
  state,
  partitions,
  cpus: 4,
  allocCpus,
});
const unit = (id: string, state: WorkUnit["state"], nodeName?: string): WorkUnit => ({
  id,
  state,
  attempts: 1,
  runs_dir: id,
  keep: "all",
  ...(nodeName ? { node: nodeName } : {}),
});

describe("elastic Slurm sizing", () => {
  it("counts idle nodes and mixed ones with CPUs to spare, in the partition, not excluded", () => {
    const nodes = [
      node("a", "idle"),
      node("b", "mixed", 2),
      node("c", "mixed", 4),
      node("d", "allocated", 4),
      node("e", "down"),
      node("f", "idle+drain"),
      node("g", "idle", 0, ["cpu"]),
      node("h", "idle"),
    ];
    assert.deepEqual(nodesWithRoom(nodes, "gpu", new Set(["h"])), ["a", "b"]);
    assert.deepEqual(nodesWithRoom(nodes, undefined, new Set()), ["a", "b", "g", "h"]);
  });

  it("adds what the backlog fills and the room allows, less shards already waiting, within max_shards", () => {
    assert.equal(shardsToAdd({ backlog: 600, chunk: 50, room: 4, waiting: 0, active: 0, maxShards: 100 }), 4);
    assert.equal(shardsToAdd({ backlog: 600, chunk: 50, room: 4, waiting: 3, active: 5, maxShards: 100 }), 1);
    assert.equal(shardsToAdd({ backlog: 60, chunk: 50, room: 8, waiting: 0, active: 0, maxShards: 100 }), 2);
    assert.equal(shardsToAdd({ backlog: 600, chunk: 50, room: 8, waiting: 0, active: 3, maxShards: 5 }), 2);
    assert.equal(shardsToAdd({ backlog: 0, chunk: 50, room: 8, waiting: 0, active: 0, maxShards: 5 }), 0);
    // Nothing runs and no node has room: one shard queues, so the job still moves when a node frees up.
    assert.equal(shardsToAdd({ backlog: 10, chunk: 5, room: 0, waiting: 0, active: 0, maxShards: 5 }), 1);
    assert.equal(shardsToAdd({ backlog: 10, chunk: 5, room: 0, waiting: 1, active: 1, maxShards: 5 }), 0);
  });

  it("excludes a node after its second failed shard, not its first", () => {
    assert.deepEqual(nodesToExclude([unit("e0", "failed", "n1"), unit("e1", "completed", "n1"), unit("e2", "failed", "n2")]), []);
    assert.deepEqual(
      nodesToExclude([unit("e0", "failed", "n1"), unit("e1", "failed", "n1"), unit("e2", "failed", "n2"), unit("e3", "failed")]),
      ["n1"],
    );
  });
});
