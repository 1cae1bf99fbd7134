import { randomBytes } from "node:crypto";

/**
 * The `sentinel` option of the tests verifier: a random token per verification, given to the
 * test command on stdin and expected back as a line of its stdout. A test script prints it
 * only after its checks returned, so code under test that ends the process early with a
 * success status (os._exit(0), sys.exit(0) at import time) cannot pass for it. It is a guard
 * against exit-code shortcuts, not against code that inspects the test process itself.
 */
export function newSentinel(): string {
  return `rlenv-sentinel-${randomBytes(12).toString("hex")}`;
}

/** Whether `stdout` has the token on a line of its own (surrounding whitespace ignored). */
export function printedSentinel(stdout: string, token: string): boolean {
  return stdout.split("\n").some((l) => l.trim() === token);
}

export const SENTINEL_MISSING =
  "the tests did not print the verifier's sentinel: they did not run to the end (the code under test may have exited early, e.g. with os._exit(0))";
