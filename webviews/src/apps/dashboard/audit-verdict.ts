import { h } from "../../shared/dom";
import type { RunAudit } from "../../../../src/core/view/protocol/run-audit";

/** How the audit was known to be of this run's environment, for the note's tooltip. */
const MATCHED = {
  content: "\nof the same environment content as this run",
  name: "\nmatched by environment name only: the audit or the run records no content hash",
} as const;

/** The header note: which audit the verdict column comes from. */
export function auditNote(audit: RunAudit | null): HTMLElement | null {
  if (!audit) return null;
  return h(
    "span",
    {
      class: "meta-item audit-note",
      title: `${audit.file}\naudited ${new Date(audit.created).toLocaleString()}${MATCHED[audit.matched ?? "name"]}`,
    },
    "audit ",
    h("span", { class: `badge ${audit.ok ? "ok" : "bad"}` }, audit.ok ? "passed" : "failed"),
  );
}

/** One task's audit verdict cell of the pass@k table: passed, failed (its problems on hover), not judged, or – (not audited). */
export function auditCell(audit: RunAudit | null, task: string): HTMLElement {
  const v = audit?.tasks.find((t) => t.task === task);
  if (!v) return h("td", { class: "audit-verdict", "data-verdict": "none", title: audit ? "not in the audit" : "no audit found" }, "–");
  const detail = [
    ...v.problems,
    v.mutation_score !== null ? `mutation score ${v.mutation_score.toFixed(2)}` : null,
    v.findings ? `${v.findings} probe finding${v.findings === 1 ? "" : "s"}` : null,
    v.flaky ? "flaky" : null,
  ].filter((x): x is string => x !== null);
  return h(
    "td",
    { class: "audit-verdict", "data-verdict": v.verdict, title: detail.join("\n") },
    h("span", { class: `badge ${v.verdict === "passed" ? "ok" : v.verdict === "failed" ? "bad" : "warn"}` }, v.verdict),
  );
}
