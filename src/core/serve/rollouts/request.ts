import { z } from "zod";
import { ServeError } from "../session-types";

/**
 * The body of `POST /v1/rollouts` (docs/serve/rollouts.md): which tasks, how many samples of
 * each (a group: its rewards are normalised together), the model server that samples them and
 * how, the policy version to stamp on every line, and how many rollouts run at once.
 */
export const RolloutsRequest = z
  .strictObject({
    environment: z.string().min(1).optional().describe("The environment's name; the only one when the server serves one"),
    tasks: z.array(z.string().min(1)).min(1).max(10_000).optional().describe("Task ids, one group each (an id twice: two groups)"),
    count: z
      .number()
      .int()
      .positive()
      .max(10_000)
      .optional()
      .describe("Without `tasks`: this many groups, tasks taken in turn from `seed`"),
    group_size: z.number().int().positive().max(1024).default(1).describe("Rollouts per group (GRPO's G)"),
    seed: z.number().int().nonnegative().optional().describe("Picks the first task for `count`; sampling seeds are seed + rollout index"),
    model: z.strictObject({
      base_url: z.string().url().describe("An OpenAI-compatible server (vLLM, SGLang): …/v1"),
      model: z.string().min(1),
      api_key: z.string().optional(),
      timeout_ms: z.number().int().positive().optional().describe("One request's limit (default 120 s)"),
      retries: z.number().int().nonnegative().max(10).default(2).describe("Tries after a 429, 5xx or connection error"),
    }),
    sampling: z
      .strictObject({
        temperature: z.number().nonnegative().optional(),
        top_p: z.number().gt(0).max(1).optional(),
        max_tokens: z.number().int().positive().optional(),
        seed: z.number().int().optional().describe("Sampling seed of the first rollout; the next get seed + 1, + 2, …"),
      })
      .default({}),
    policy_version: z
      .union([z.string().min(1), z.number().int()])
      .optional()
      .describe("The trainer's tag for the weights that sample (a step number): echoed on every line"),
    concurrency: z.number().int().positive().max(1024).default(8).describe("Rollouts (sandboxes and policy requests) in flight"),
  })
  .superRefine((r, ctx) => {
    if (r.tasks === undefined && r.count === undefined)
      ctx.addIssue({ code: "custom", path: ["tasks"], message: "give `tasks` (ids) or `count`" });
    if (r.tasks !== undefined && r.count !== undefined)
      ctx.addIssue({ code: "custom", path: ["count"], message: "give `tasks` or `count`, not both" });
    if ((r.tasks?.length ?? r.count ?? 0) * r.group_size > MAX_ROLLOUTS)
      ctx.addIssue({ code: "custom", path: ["group_size"], message: `at most ${MAX_ROLLOUTS} rollouts a request (groups × group_size)` });
  });
export type RolloutsRequest = z.infer<typeof RolloutsRequest>;

/** Rollouts one request may ask for: a batch, not a run. */
export const MAX_ROLLOUTS = 65_536;

/** The request parsed, or a ServeError("invalid") whose field is the first wrong one's path (`model.base_url`, `tasks[2]`). */
export function parseRolloutsRequest(body: unknown): RolloutsRequest {
  const r = RolloutsRequest.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue ? fieldPath(issue.path) : "";
  const message =
    issue?.code === "unrecognized_keys" ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}` : issue?.message;
  const named = issue?.code === "unrecognized_keys" ? fieldPath([...issue.path, issue.keys[0] ?? ""]) : field;
  throw new ServeError("invalid", `${named || "body"}: ${message ?? "invalid request"}`, named || undefined);
}

/** A zod path as a reader writes it: `model.base_url`, `tasks[2]`. */
export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)), "");
}
