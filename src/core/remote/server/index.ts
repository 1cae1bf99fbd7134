/** The runner's HTTP face: the server, its routes and handlers, replies, the token, metrics, the runner's status and run folders streamed as tar. */
export * from "./http-reply";
export * from "./metrics";
export * from "./run-stream";
export * from "./runner-status";
export * from "./server-handlers";
export * from "./server-routes";
export * from "./server";
export * from "./token";
