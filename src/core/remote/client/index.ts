/** The runner's client: the HTTP client and the runners a user has configured. */
export * from "./client-config";
export * from "./client";
