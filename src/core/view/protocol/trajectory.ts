import { z } from "zod";
import { Citation, FileDiff, type RolloutStatus, SceneSnapshot, TrajectoryEvent } from "../../schema/trajectory";

/** Messages of the trajectory viewer app: method name → params and result schemas. */

export const RowKind = z.enum(["prompt", "turn", "reward", "error", "end"]);
export type RowKind = z.infer<typeof RowKind>;

/** One line of the timeline: a turn (assistant message + its tool calls and observations) or a lone event. */
export const RowSummary = z.object({
  index: z.number().int(),
  kind: RowKind,
  turn: z.number().int().nullable(),
  title: z.string(),
  preview: z.string(),
  tools: z.array(z.string()),
  /** The worst observation status in the row, or the end status. */
  status: z.string().nullable(),
  tokens: z.number().int().nullable(),
  latency_ms: z.number().nullable(),
  duration_ms: z.number().nullable(),
  t: z.number().nullable(),
  has: z.object({ diff: z.boolean(), scene: z.boolean(), citations: z.boolean(), images: z.boolean() }),
});
export type RowSummary = z.infer<typeof RowSummary>;

export const LineProblem = z.object({ line: z.number().int(), message: z.string() });
export type LineProblem = z.infer<typeof LineProblem>;

export const TrajectoryMeta = z.object({
  file: z.string(),
  bytes: z.number().int(),
  lines: z.number().int(),
  rows: z.number().int(),
  complete: z.boolean(),
  /** The index is still being built (a large file): rows grows until this is false. */
  indexing: z.boolean(),
  domain: z.string().nullable(),
  start: TrajectoryEvent.nullable(),
  end: TrajectoryEvent.nullable(),
  reward: TrajectoryEvent.nullable(),
  /** An error event says the infrastructure failed (sandbox lost, policy server down): no score, whatever the end says. */
  infra: z.boolean().default(false),
  /** The first unreadable lines (up to 200); `problemCount` counts them all. */
  problems: z.array(LineProblem),
  problemCount: z.number().int(),
  /** A last line without its newline that is not a whole event: torn by a writer that stopped, or still being written. */
  torn: z.object({ line: z.number().int(), bytes: z.number().int() }).nullable(),
  /** Rows that carry a scene snapshot, for the 3D scrubber. */
  sceneRows: z.array(z.number().int()),
});
export type TrajectoryMeta = z.infer<typeof TrajectoryMeta>;

export const StepEntry = z.union([
  z.object({ line: z.number().int(), event: TrajectoryEvent }),
  z.object({ line: z.number().int(), problem: z.string() }),
]);
export type StepEntry = z.infer<typeof StepEntry>;

/**
 * One window of a step's events: a step can hold tens of thousands (a tool called in a
 * loop), so the app asks for a page at a time and the DOM never holds more than one.
 */
export const StepDetail = z.object({
  row: z.number().int(),
  entries: z.array(StepEntry),
  /** Index of the first entry's line within the step, and the number of lines the step has. */
  from: z.number().int().default(0),
  total: z.number().int().default(0),
});
/** Events of a step sent at once (the page size of the step window). */
export const STEP_PAGE = 200;
/** Timeline rows fetched at once (the host sends the first screen's page ahead with the same size). */
export const ROW_PAGE = 100;
export type StepDetail = z.infer<typeof StepDetail>;

export const CheckResult = z.object({ name: z.string(), targets: z.array(z.string()), passed: z.boolean(), reason: z.string().optional() });
export type CheckResult = z.infer<typeof CheckResult>;

export const SceneAtRow = z.object({
  /** The row the snapshot came from (the last one at or before the asked row), null when none. */
  row: z.number().int().nullable(),
  scene: SceneSnapshot.nullable(),
  images: z.array(z.object({ row: z.number().int(), mime: z.string(), data: z.string() })),
  checks: z.array(CheckResult),
});
export type SceneAtRow = z.infer<typeof SceneAtRow>;

/** A range of a page's text to mark: a cited span, a field's submitted figure, or the gold figure of a field graded wrong. */
export const DocMark = z.object({
  kind: z.enum(["cite", "submitted", "gold"]),
  start: z.number().int(),
  end: z.number().int(),
  field: z.string().nullable(),
});
export type DocMark = z.infer<typeof DocMark>;

export const DocPage = z.object({
  row: z.number().int(),
  tool: z.string(),
  document: z.string().nullable(),
  page: z.number().int().nullable(),
  /** The page text as the tool returned it, without its header line. */
  text: z.string(),
  /** Character offset of `text` within the page (a read that started mid-page). */
  offset: z.number().int(),
  marks: z.array(DocMark).optional(),
});
export type DocPage = z.infer<typeof DocPage>;

export const FieldResult = z.object({
  field: z.string(),
  comparator: z.string().nullable().default(null),
  /** The gold value where the verifier recorded it (the hidden target is not in the trajectory otherwise); absent when it did not. */
  expected: z.unknown().optional(),
  /** The submitted value; absent when the report has no such field (the panel marks it missing). */
  got: z.unknown().optional(),
  passed: z.boolean().nullable(),
  score: z.number().nullable(),
  reason: z.string().nullable(),
  /** For a field graded wrong: the pages read (indexes into `pages`) where the gold figure stands. */
  gold_at: z.array(z.number().int()).optional(),
});
export type FieldResult = z.infer<typeof FieldResult>;

export const DocumentsView = z.object({
  pages: z.array(DocPage),
  /** Each with the page read it points at (index into `pages`, the latest read) and the cited span there (null: the whole page). */
  citations: z.array(
    Citation.extend({
      row: z.number().int(),
      page_index: z.number().int().nullable().default(null),
      span: z.tuple([z.number().int(), z.number().int()]).nullable().default(null),
    }),
  ),
  report: z.unknown(),
  fields: z.array(FieldResult),
});
export type DocumentsView = z.infer<typeof DocumentsView>;

/** Rollouts one compare view shows side by side. */
export const MAX_COMPARE = 4;

export const TrajectoryMethods = {
  meta: { params: z.object({ file: z.string() }), result: TrajectoryMeta },
  rows: {
    params: z.object({ file: z.string(), from: z.number().int().nonnegative(), to: z.number().int().nonnegative() }),
    result: z.array(RowSummary),
  },
  step: {
    params: z.object({
      file: z.string(),
      row: z.number().int().nonnegative(),
      from: z.number().int().nonnegative().default(0),
      limit: z.number().int().positive().max(2000).default(STEP_PAGE),
    }),
    result: StepDetail,
  },
  diff: { params: z.object({ file: z.string(), row: z.number().int().nonnegative().nullable() }), result: z.array(FileDiff) },
  scene: { params: z.object({ file: z.string(), row: z.number().int().nonnegative() }), result: SceneAtRow },
  documents: { params: z.object({ file: z.string() }), result: DocumentsView },
  /** Two to four rollouts aligned by step: each line holds one row index (or null) per file, in the order given. */
  align: {
    params: z.object({ files: z.array(z.string()).min(2).max(MAX_COMPARE) }),
    result: z.array(z.array(z.number().int().nullable())),
  },
} as const;

export type RolloutStatusName = z.infer<typeof RolloutStatus>;
