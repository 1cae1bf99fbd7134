/** Finished jobs' run folders kept in an S3-compatible store. */
export * from "./run-archive";
