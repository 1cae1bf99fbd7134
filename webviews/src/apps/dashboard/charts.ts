import { svg } from "../../shared/dom";
import type { Bin, UtilisationPoint } from "./protocol";

const W = 320;
const H = 140;
/** The top pad holds the tallest bar's count above it (10px text). */
const PAD = { l: 28, r: 6, t: 14, b: 20 };
/** A digit of the charts' 10px text, in the viewBox's units (a label is placed by its length: no layout is read). */
const CHAR_W = 6;

/** A count in five characters at most, so it fits over its bar (the bar's title holds the exact count): 1249, 12.3k, 123k, 1.2M. */
function shortCount(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A bar's count, centred over it but kept inside the chart: the last bar's (often the tallest, at reward 1) is not cut at the right edge. */
function countLabel(text: string, centre: number, y: number): SVGTextElement {
  const half = (text.length * CHAR_W) / 2;
  const x = Math.min(Math.max(centre, PAD.l + half), W - 1 - half);
  return svg("text", { x: x.toFixed(1), y, "text-anchor": "middle", class: "count" }, text);
}

/** A bar chart of histogram bins, counts as text above each bar. */
export function barChart(bins: Bin[], label: (b: Bin) => string): SVGSVGElement {
  const max = Math.max(1, ...bins.map((b) => b.count));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const bw = iw / Math.max(1, bins.length);
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img" });
  root.appendChild(svg("line", { class: "axis", x1: PAD.l, y1: PAD.t + ih, x2: W - PAD.r, y2: PAD.t + ih }));
  root.appendChild(svg("text", { x: 2, y: PAD.t + 8 }, String(max)));
  bins.forEach((b, i) => {
    const bh = (b.count / max) * ih;
    const x = PAD.l + i * bw;
    const rect = svg("rect", { class: "b", x: x + 1, y: PAD.t + ih - bh, width: Math.max(1, bw - 2), height: bh });
    rect.appendChild(svg("title", {}, `${label(b)}: ${b.count}`));
    root.appendChild(rect);
    if (b.count) root.appendChild(countLabel(shortCount(b.count), x + bw / 2, PAD.t + ih - bh - 2));
    if (i % Math.ceil(bins.length / 5) === 0) root.appendChild(svg("text", { x, y: H - 6 }, label(b)));
  });
  return root;
}

/** A concurrency decision placed on the chart's clock: epoch ms and the limit from then on. */
export interface LimitStep {
  t: number;
  limit: number;
  reason: string;
}

/** Policy requests in flight (solid), rollouts running (dashed) and, under adaptive concurrency, its limit (steps) over the run. */
export function utilisationChart(points: UtilisationPoint[], limits: LimitStep[] = []): SVGSVGElement {
  const root = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img" });
  if (!points.length) return root;
  const max = Math.max(1, ...points.map((p) => Math.max(p.policy_in_flight, p.rollouts_running)), ...limits.map((l) => l.limit));
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const t0 = points[0]!.t;
  const span = Math.max(1, points[points.length - 1]!.t - t0);
  const xy = (p: UtilisationPoint, v: number) =>
    `${(PAD.l + ((p.t - t0) / span) * iw).toFixed(1)},${(PAD.t + ih - (v / max) * ih).toFixed(1)}`;
  root.appendChild(svg("line", { class: "axis", x1: PAD.l, y1: PAD.t + ih, x2: W - PAD.r, y2: PAD.t + ih }));
  root.appendChild(svg("polyline", { class: "l1", points: points.map((p) => xy(p, p.policy_in_flight)).join(" ") }));
  root.appendChild(svg("polyline", { class: "l2", points: points.map((p) => xy(p, p.rollouts_running)).join(" ") }));
  if (limits.length > 0) {
    // A step line: each limit holds until the next decision (or the end of the chart).
    const at = (t: number, v: number) => xy({ t: Math.min(Math.max(t, t0), t0 + span), policy_in_flight: 0, rollouts_running: 0 }, v);
    const steps = limits.flatMap((l, i) => [at(l.t, i > 0 ? limits[i - 1]!.limit : l.limit), at(l.t, l.limit)]);
    steps.push(at(t0 + span, limits[limits.length - 1]!.limit));
    const line = svg("polyline", { class: "l3", points: steps.join(" ") });
    line.appendChild(
      svg(
        "title",
        {},
        limits
          .map((l) => `${l.limit}: ${l.reason}`)
          .slice(-10)
          .join("\n"),
      ),
    );
    root.appendChild(line);
  }
  root.appendChild(svg("text", { x: 2, y: PAD.t + 8 }, max.toFixed(1)));
  root.appendChild(svg("text", { x: PAD.l, y: H - 6 }, "0 s"));
  root.appendChild(svg("text", { x: W - 40, y: H - 6 }, `${(span / 1000).toFixed(0)} s`));
  return root;
}
