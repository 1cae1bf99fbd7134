/** Where a job's units run: on this host (local) or as Slurm arrays (fixed shards or elastic), each unit handed its run request as a file. */
export * from "./local-executor";
export * from "./slurm-client";
export * from "./slurm-control";
export * from "./slurm-elastic";
export * from "./slurm-executor";
export * from "./slurm-poll";
export * from "./slurm-script";
export * from "./unit-request";
