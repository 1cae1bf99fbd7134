import type { Agreement, CalibrationReport, Rate } from "../schema/calibration";

const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);

/** "12/368 = 3.3% [1.9%, 5.6%]": a rate with its 95 % Wilson interval. */
export function rateText(r: Rate): string {
  if (r.n === 0) return "–";
  return `${r.k}/${r.n} = ${pct(r.rate)} [${pct(r.low)}, ${pct(r.high)}]`;
}

export const kappaText = (k: number | null) => (k === null ? "–" : k.toFixed(3));

/** Markdown table cells never break on a model's text: pipes escaped, lines joined. */
const cell = (s: string) =>
  s
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ⏎ ");

function agreementRow(name: string, a: Agreement): string {
  return `| ${cell(name)} | ${a.n} | ${a.both_accept} | ${a.false_reject} | ${a.false_accept} | ${a.both_reject} | ${rateText(a.false_accept_rate)} | ${rateText(a.false_reject_rate)} | ${kappaText(a.kappa)} |`;
}

const AGREEMENT_HEAD = [
  "| | n | both accept | false reject | false accept | both reject | false-accept rate [95% CI] | false-reject rate [95% CI] | κ |",
  "|---|---:|---:|---:|---:|---:|---|---|---:|",
];

/** The calibration as markdown: the figures, the breakdowns, every disagreement with the verifier's reason. */
export function renderCalibrationMarkdown(r: CalibrationReport): string {
  const o = r.overall;
  const lines = [
    `# Calibration of ${r.env.name} against ${r.labels}`,
    "",
    `Answers submitted: ${r.answers === "whole" ? "the whole reply" : "the final sentence"}. ${r.counts.lines} labels: ${r.counts.graded} graded, ${r.counts.not_graded} not graded, ${r.counts.bad} bad. The verifier accepts at reward ≥ ${r.accept.reward_at}. Run: ${r.run_dir || "(none)"}.`,
    "",
    `- **False accepts** (the reward accepts what people reject): ${rateText(o.false_accept_rate)}`,
    `- **False rejects** (the reward rejects what people accept): ${rateText(o.false_reject_rate)}`,
    `- **Agreement** ${pct(o.agreement)}, **Cohen's κ** ${kappaText(o.kappa)}`,
    ...r.bars.missed.map((m) => `- **Bar missed:** ${m}`),
    "",
    "## Confusion matrix",
    "",
    "| people \\ verifier | accept | reject |",
    "|---|---:|---:|",
    `| accept | ${o.both_accept} | ${o.false_reject} |`,
    `| reject | ${o.false_accept} | ${o.both_reject} |`,
    "",
    "## Per reward component",
    "",
    ...AGREEMENT_HEAD,
    ...r.components.map((c) => agreementRow(`${c.name} (${c.type})`, c)),
    "",
    "## Per report field",
    "",
    ...(r.fields.length
      ? [...AGREEMENT_HEAD, ...r.fields.map((f) => agreementRow(`${f.component}.${f.field}`, f))]
      : ["(no component grades fields)"]),
    "",
  ];
  if (r.groups.length) lines.push("## Per group", "", ...AGREEMENT_HEAD, ...r.groups.map((g) => agreementRow(g.group, g)), "");
  lines.push(`## Disagreements (${r.disagreements.length})`, "");
  if (r.disagreements.length) {
    lines.push("| line | task | kind | where | reward | verifier's reason | answer |", "|---:|---|---|---|---:|---|---|");
    for (const d of r.disagreements)
      lines.push(
        `| ${d.line} | ${cell(d.task)} | ${d.kind} | ${cell(d.scope)} | ${d.reward ?? "–"} | ${cell(d.reason)} | ${cell(d.answer)} |`,
      );
  } else lines.push("None.");
  lines.push("");
  if (r.not_graded.length) {
    lines.push(`## Not graded (${r.not_graded.length})`, "", "| line | task | why |", "|---:|---|---|");
    for (const n of r.not_graded) lines.push(`| ${n.line} | ${cell(n.task)} | ${cell(n.reason)} |`);
    lines.push("");
  }
  if (r.problems.length) {
    lines.push(`## Bad labels (${r.problems.length})`, "");
    for (const p of r.problems) lines.push(`- ${p.file}:${p.line}: ${p.field}: ${p.message}`);
    lines.push("");
  }
  return lines.join("\n");
}
