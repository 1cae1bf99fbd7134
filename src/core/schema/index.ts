export * from "./common";
export * from "./manifest";
export * from "./run";
export * from "./task";
export * from "./tool";
export * from "./trajectory";
export * from "./verifier";
export * from "./builtins";
