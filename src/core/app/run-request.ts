import { readFileSync } from "node:fs";
import { RunRequest } from "../schema/run-request";

export { RunRequest, type RunRequestInput } from "../schema/run-request";

/** A request file, parsed: what is wrong with it is named with the field. */
export function readRunRequest(file: string): RunRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`--request ${file}: ${(e as Error).message}`);
  }
  const r = RunRequest.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new Error(`--request ${file}: ${i ? `${i.path.join(".") || "value"}: ${i.message}` : "not a run request"}`);
  }
  return r.data;
}
