import * as z from "zod/mini";
import { ReadinessReport, TaskReadiness } from "../../../../src/core/schema/report";
import { parseInSlices, parseOrThrow, yieldToPage } from "../../shared/parse-slices";
import { Dashboard, TaskPass } from "./protocol";

/**
 * `run`'s reply without its two per-task lists (pass@k per task, and the readiness report's tasks:
 * a run of 500 tasks sends 1,000 entries, each with a figure for every k), whose entries are taken
 * as they come here and parsed in slices after: the whole reply parsed at once held the page's
 * main thread for 30–40 ms as a run opened.
 */
const Head = z.extend(Dashboard, {
  perTask: z.array(z.unknown()),
  readiness: z._default(z.nullable(z.extend(ReadinessReport, { tasks: z.array(z.unknown()) })), null),
});

/** The run's dashboard from `run`'s reply as sent, checked as the `Dashboard` schema checks it, in slices. */
export async function parseDashboard(value: unknown): Promise<Dashboard> {
  const head = parseOrThrow(Head, value, "run");
  await yieldToPage();
  const perTask = await parseInSlices(TaskPass, head.perTask, "run", ["perTask"]);
  if (!head.readiness) return { ...head, perTask, readiness: null };
  const tasks = await parseInSlices(TaskReadiness, head.readiness.tasks, "run", ["readiness", "tasks"]);
  return { ...head, perTask, readiness: { ...head.readiness, tasks } };
}
