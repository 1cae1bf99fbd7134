/**
 * Whether a service brought up by test/setup is missing on this machine. Returns the
 * reason (a string, which node:test prints as the skip reason) or false when present.
 * Use: `test("…", { skip: missing("docker") }, async () => …)`.
 */
export function missing(part: "apt" | "docker" | "image" | "chromium" | "slurm" | "code-server" | "prometheus" | "s3"): string | false {
  const v = process.env[`RLENV_MISSING_${part.replace(/-/g, "_")}`];
  return v ? `${part} is missing here: ${v}` : false;
}
