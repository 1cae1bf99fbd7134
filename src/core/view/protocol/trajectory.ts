import * as z from "zod/mini";
import "../../schema/zod-mini";
import { Citation, FileDiff, type RolloutStatus, SceneSnapshot, TrajectoryEvent } from "../../schema/trajectory";

/** Messages of the trajectory viewer app: method name → params and result schemas. */

const int = () => z.number().check(z.int());
/** A row, line or position: from 0. */
const index = () => z.number().check(z.int(), z.nonnegative());

export const RowKind = z.enum(["prompt", "turn", "reward", "error", "end"]);
export type RowKind = z.infer<typeof RowKind>;

/** One line of the timeline: a turn (assistant message + its tool calls and observations) or a lone event. */
export const RowSummary = z.object({
  index: int(),
  kind: RowKind,
  turn: z.nullable(int()),
  title: z.string(),
  preview: z.string(),
  tools: z.array(z.string()),
  /** The worst observation status in the row, or the end status. */
  status: z.nullable(z.string()),
  tokens: z.nullable(int()),
  latency_ms: z.nullable(z.number()),
  duration_ms: z.nullable(z.number()),
  t: z.nullable(z.number()),
  has: z.object({ diff: z.boolean(), scene: z.boolean(), citations: z.boolean(), images: z.boolean() }),
});
export type RowSummary = z.infer<typeof RowSummary>;

export const LineProblem = z.object({ line: int(), message: z.string() });
export type LineProblem = z.infer<typeof LineProblem>;

export const TrajectoryMeta = z.object({
  file: z.string(),
  bytes: int(),
  lines: int(),
  rows: int(),
  complete: z.boolean(),
  /** The index is still being built (a large file): rows grows until this is false. */
  indexing: z.boolean(),
  domain: z.nullable(z.string()),
  start: z.nullable(TrajectoryEvent),
  end: z.nullable(TrajectoryEvent),
  reward: z.nullable(TrajectoryEvent),
  /** An error event says the infrastructure failed (sandbox lost, policy server down): no score, whatever the end says. */
  infra: z._default(z.boolean(), false),
  /** The first unreadable lines (up to 200); `problemCount` counts them all. */
  problems: z.array(LineProblem),
  problemCount: int(),
  /** A last line without its newline that is not a whole event: torn by a writer that stopped, or still being written. */
  torn: z.nullable(z.object({ line: int(), bytes: int() })),
  /** Rows that carry a scene snapshot, for the 3D scrubber. */
  sceneRows: z.array(int()),
});
export type TrajectoryMeta = z.infer<typeof TrajectoryMeta>;

export const StepEntry = z.union([z.object({ line: int(), event: TrajectoryEvent }), z.object({ line: int(), problem: z.string() })]);
export type StepEntry = z.infer<typeof StepEntry>;

/**
 * One window of a step's events: a step can hold tens of thousands (a tool called in a
 * loop), so the app asks for a page at a time and the DOM never holds more than one.
 */
export const StepDetail = z.object({
  row: int(),
  entries: z.array(StepEntry),
  /** Index of the first entry's line within the step, and the number of lines the step has. */
  from: z._default(int(), 0),
  total: z._default(int(), 0),
});
/** Events of a step sent at once (the page size of the step window). */
export const STEP_PAGE = 200;
/** Timeline rows fetched at once (the host sends the first screen's page ahead with the same size). */
export const ROW_PAGE = 100;
export type StepDetail = z.infer<typeof StepDetail>;

export const CheckResult = z.object({
  name: z.string(),
  targets: z.array(z.string()),
  passed: z.boolean(),
  reason: z.optional(z.string()),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const SceneAtRow = z.object({
  /** The row the snapshot came from (the last one at or before the asked row), null when none. */
  row: z.nullable(int()),
  scene: z.nullable(SceneSnapshot),
  images: z.array(z.object({ row: int(), mime: z.string(), data: z.string() })),
  checks: z.array(CheckResult),
});
export type SceneAtRow = z.infer<typeof SceneAtRow>;

/** A range of a page's text to mark: a cited span, a field's submitted figure, or the gold figure of a field graded wrong. */
export const DocMark = z.object({
  kind: z.enum(["cite", "submitted", "gold"]),
  start: int(),
  end: int(),
  field: z.nullable(z.string()),
});
export type DocMark = z.infer<typeof DocMark>;

export const DocPage = z.object({
  row: int(),
  tool: z.string(),
  document: z.nullable(z.string()),
  page: z.nullable(int()),
  /** The page text as the tool returned it, without its header line. */
  text: z.string(),
  /** Character offset of `text` within the page (a read that started mid-page). */
  offset: int(),
  marks: z.optional(z.array(DocMark)),
});
export type DocPage = z.infer<typeof DocPage>;

export const FieldResult = z.object({
  field: z.string(),
  /** The reward component that graded it (the Reward tab lists each component's fields under it). */
  component: z._default(z.nullable(z.string()), null),
  comparator: z._default(z.nullable(z.string()), null),
  /** The gold value where the verifier recorded it (the hidden target is not in the trajectory otherwise); absent when it did not. */
  expected: z.optional(z.unknown()),
  /** The submitted value; absent when the report has no such field (the panel marks it missing). */
  got: z.optional(z.unknown()),
  passed: z.nullable(z.boolean()),
  score: z.nullable(z.number()),
  reason: z.nullable(z.string()),
  /** For a field graded wrong: the pages read (indexes into `pages`) where the gold figure stands. */
  gold_at: z.optional(z.array(int())),
});
export type FieldResult = z.infer<typeof FieldResult>;

export const DocumentsView = z.object({
  pages: z.array(DocPage),
  /** Each with the page read it points at (index into `pages`, the latest read) and the cited span there (null: the whole page). */
  citations: z.array(
    z.extend(Citation, {
      row: int(),
      page_index: z._default(z.nullable(int()), null),
      span: z._default(z.nullable(z.tuple([int(), int()])), null),
      /** For a citation of a page never read: the search results (index into `pages`) where its words were seen, if any. */
      search_index: z._default(z.nullable(int()), null),
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
    params: z.object({ file: z.string(), from: index(), to: index() }),
    result: z.array(RowSummary),
  },
  step: {
    params: z.object({
      file: z.string(),
      row: index(),
      from: z._default(index(), 0),
      limit: z._default(z.number().check(z.int(), z.positive(), z.lte(2000)), STEP_PAGE),
    }),
    result: StepDetail,
  },
  diff: { params: z.object({ file: z.string(), row: z.nullable(index()) }), result: z.array(FileDiff) },
  scene: { params: z.object({ file: z.string(), row: index() }), result: SceneAtRow },
  documents: { params: z.object({ file: z.string() }), result: DocumentsView },
  /**
   * Two to four rollouts aligned by step: each line holds one row index (or null) per file, in the
   * order given. `partial` while a file is still being read: the lines cover the rows read so far
   * (a large rollout is compared from its first chunk on, as it is opened), and asking again extends them.
   */
  align: {
    params: z.object({ files: z.array(z.string()).check(z.minLength(2), z.maxLength(MAX_COMPARE)) }),
    result: z.object({ lines: z.array(z.array(z.nullable(int()))), partial: z.boolean() }),
  },
} as const;

export type RolloutStatusName = z.infer<typeof RolloutStatus>;
