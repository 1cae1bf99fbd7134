import { type AlignedLine, COMPARE_PAGE, rowRangesFor } from "../model/compare-window";
import type { Preloaded } from "../protocol/envelope";
import { ROW_PAGE, type TrajectoryMeta } from "../protocol/trajectory";
import type { ViewService } from "./view-service";

/**
 * The replies the trajectory app asks for before it can paint its first screen (the
 * meta, the page of timeline rows holding the first step, that step), computed while the
 * page loads and sent with `init`, so the first step is drawn without a round trip per
 * reply. The params are the app's own (steps-panel.ts and the virtual list): a reply
 * whose request the app does not make (a restored panel on another step) is just unused.
 * A large file answers from the index's first chunk while the rest is still being read.
 */
export async function firstScreen(service: ViewService, file: string, wanted: number | undefined): Promise<Preloaded[]> {
  const meta = (await service.handle("meta", { file })) as TrajectoryMeta;
  const out: Preloaded[] = [{ method: "meta", params: { file }, result: meta }];
  if (meta.rows === 0) return out;
  const row = Math.min(wanted ?? 0, meta.rows - 1);
  const from = Math.floor(row / ROW_PAGE) * ROW_PAGE;
  const rows = { file, from, to: Math.min(meta.rows, from + ROW_PAGE) };
  const step = { file, row, from: 0 };
  const [rowsResult, stepResult] = await Promise.all([service.handle("rows", rows), service.handle("step", step)]);
  out.push({ method: "rows", params: rows, result: rowsResult }, { method: "step", params: step, result: stepResult });
  return out;
}

/**
 * The replies a compare view asks for before it paints its first lines, sent with `init` as the
 * first screen's are: the alignment (of the rows read so far: the app asks again while it is
 * `partial`) and the row summaries of the list's first page. Asked by the page, they waited
 * behind the rest of a large file being read (two round trips of ~100 ms each on 2 cores).
 * `files` are the app's own: the page's rollout, then the ones it is compared with.
 */
export async function compareScreen(service: ViewService, files: string[]): Promise<Preloaded[]> {
  const params = { files };
  const aligned = (await service.handle("align", params)) as { lines: AlignedLine[]; partial: boolean };
  const page = aligned.lines.slice(0, COMPARE_PAGE);
  const asks = files.flatMap((file, k) => rowRangesFor(page, k).map((range) => ({ file, ...range })));
  const replies = await Promise.all(asks.map((p) => service.handle("rows", p)));
  return [{ method: "align", params, result: aligned }, ...asks.map((p, i) => ({ method: "rows", params: p, result: replies[i] }))];
}
