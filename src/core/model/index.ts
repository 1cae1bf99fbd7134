/**
 * The shapes every area of the engine shares, and pure functions on them; nothing here does I/O
 * or imports behaviour (only other model files and schema's types).
 *
 * The layering rule of src/core, bottom to top. An area imports only areas below it (type-only
 * imports included), never one beside or above it; `npx tsx scripts/architecture.ts` reports a
 * loop when the rule is broken.
 *
 *   0. schema       the zod schemas of the files a user writes and the engine records
 *   1. model        these shapes (Environment, LoadedTask, TaskStages, Problem, the domain, tool and
 *                   verifier contracts, the Sandbox interface, the engine's errors); tokens
 *   2. util         cross-cutting helpers: shell quoting, backoff and abort, observations, owner
 *                   records, bounded source reading, the folder hash, the tree reader
 *   3. sandbox      the backends and their images; runs (the run folder's format: reading, writing)
 *   4. policy       the agent's side (a model server, the oracle, a replayed run)
 *   5. reward       verifiers and comparators, Harbor's verifier among them
 *   6. harbor       Harbor's task format: loading one task, exporting, ATIF
 *   7. environment  the loaders (a Harbor task folder goes to harbor's loader)
 *   8. domains      the domain plugins (code, document, scene3d)
 *   9. rollout      the episode and the run of an environment
 *  10. audit, calibrate, debug, lint, remote, report
 *  11. app, docs, view
 *  12. fleet
 *
 * Where a lower area needs something of a higher one, the shared piece moves down (here, or to
 * util) or the higher area passes it in.
 */
export * from "./domain";
export * from "./environment";
export * from "./errors";
export * from "./file-content";
export * from "./harbor";
export * from "./problem";
export * from "./prompt-template";
export * from "./sandbox";
export * from "./task-stages";
