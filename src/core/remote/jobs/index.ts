/** The runner's jobs: the job manager and its queue, journal, events, GPU samples, merged run folders, the policy server a job starts, the upload check, and the contract executors work to (executor.ts). */
export * from "./error-class";
export * from "./executor";
export * from "./gpu-sampler";
export * from "./gpus";
export * from "./idempotent-submits";
export * from "./job-event-batcher";
export * from "./job-merger";
export * from "./job-queue";
export * from "./jobs";
export * from "./journal";
export * from "./merge";
export * from "./policy-server";
export * from "./remainder";
export * from "./rollout-watch";
export * from "./upload-validation";
export * from "./job-intake";
export * from "./job-progress";
