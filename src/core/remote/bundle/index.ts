/** The tar format a job travels in: environment bundles packed and unpacked with their limits, and the tar reader and writer under them. */
export * from "./bundle";
export * from "./tar-out";
export * from "./tar-reader";
export * from "./tar-writer";
