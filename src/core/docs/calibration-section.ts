import { DEFAULT_ACCEPT_WORDS, LabelLine } from "../calibrate/labels";

/** The fields of a native label line, from the schema's own descriptions. */
function labelRows(): string[] {
  return Object.entries(LabelLine.shape).map(([name, schema]) => {
    const optional = schema.safeParse(undefined).success;
    return `| \`${name}\` | ${optional ? "no" : "yes"} | ${schema.description ?? ""} |`;
  });
}

/** docs/reference.md: `rlenv calibrate`, its labels file, its verdicts and its outputs. */
export function calibrationSection(): string[] {
  return [
    "## Calibration labels (`rlenv calibrate`)",
    "",
    "`rlenv calibrate ENV --labels FILE` runs labelled answers through the environment's real reward path — one rollout per label, in a run folder like `rlenv run`'s, that submits the answer with the environment's own submit tool (`submit_report` in a document environment: the text goes in the report's `answer` field, `--field` names another; `submit` elsewhere) or replays the label's trajectory — and measures how the reward agrees with the people who labelled them: the confusion matrix, the false-accept rate (accepted / answers people reject) and false-reject rate (rejected / answers people accept) with 95 % Wilson intervals, Cohen's κ, the same per reward component, per report field and per `group`, and every disagreement with the verifier's reason. It writes `calibration.json` and `calibration.md` into the run folder (the run dashboard shows them) and into `--out DIR`.",
    "",
    "`FILE` is JSONL, one label a line:",
    "",
    "| field | required | description |",
    "|---|---|---|",
    ...labelRows(),
    "",
    "```jsonl",
    '{"task": "fb-00499", "answer": "Net revenue grew by $5,818 million.", "verdict": "accept", "group": "gpt-4_oracle"}',
    '{"task": "fb-00499", "answer": {"answer": "$5,818 million", "citations": [{"document": "AMD_2022_10K.txt", "page": 54}]}, "verdict": 0.5}',
    '{"task": "add", "trajectory": "runs/r1/rollouts/add.s0.jsonl", "verdict": false}',
    "```",
    "",
    "A line of FinanceBench's reviewed results (patronus-ai/financebench `results/*.jsonl`, as in `../shared/datasets/financebench-labels/`) is read as it is: `financebench_id` `financebench_id_00499` is task `fb-00499` (the id `scripts/envs/financebench.ts` gives), `model_answer` the answer, `label` the verdict, `model_name`_`eval_mode` the group. The shipped environment has 49 of those questions; `npx tsx scripts/envs/financebench-calibration.ts LABELS OUT` writes a copy with a task for every question the labels ask (the shipped task where there is one).",
    "",
    `**Verdicts.** A word accepts when it is one of ${DEFAULT_ACCEPT_WORDS.map((w) => `\`${w}\``).join(", ")} and rejects when it is one of \`reject\`, \`rejected\`, \`incorrect\`, \`incorrect answer\`, \`wrong\`, \`refusal\`, \`refused\`, \`fail\`, \`failed\`, \`no\`, \`false\` (any case); any other word is a bad label. \`--accept-label a,b\` names the accepting words instead, and every other word then rejects. A boolean is itself; a number accepts at or above \`--accept-score\` (default 1). The verifier accepts a reward at or above \`--reward-at\` (default 1, full marks); a component accepts when it passed, a field when it passed. A label whose rollout could not be graded — a judge with no endpoint (skipped), an infrastructure failure — is listed as not graded, never counted as a rejection.`,
    "",
    "**Whole reply or final sentence.** By default the whole reply is submitted. `--final-sentence` submits the label's `final_answer`, else the reply's final answer, its last sentence that states a figure (a reply that ends with its sources or caveats states its answer before them), or its last sentence where none does: a line break ends a sentence, and so does `.`, `!` or `?` followed by a space, except after an abbreviation (`Inc.`, `U.S.`, `e.g.`), a single initial (`J.`) or a list mark at the start of a line (`2.`); a full stop between digits never does; bullet and heading marks are dropped.",
    "",
    "**Citations.** A label written without citations cites nothing, so a field with `cite: true` fails its citation check. `--cite-evidence` cites the task's `target.evidence` pages when the label's report cites none: the check then asks whether the answer's figure is printed on the gold page.",
    "",
    "**Judge rubrics.** A `judge` verifier or field asks the judge named on the verifier, else `--judge-base-url`/`--judge-model` (or `RLENV_JUDGE_BASE_URL`/`RLENV_JUDGE_MODEL`).",
    "",
    "**Exit codes.** 0: measured; 1: a rate is over `--max-false-accept` or `--max-false-reject` (a fraction, `0.02`, or a percentage, `2%`); 2: bad input — each bad line is named with its file, line and field on stderr and in the report, and every other label is still graded.",
    "",
  ];
}
