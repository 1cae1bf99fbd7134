import type { SceneNode } from "../../../schema/trajectory";
import { BuiltinBackend } from "../builtin-backend";
import type { SceneCheck } from "./check-spec";

/**
 * Target scenes built from their add_object specs, by content: every sample of a task
 * grades against the same target, so it is built once (a few most recent kept).
 */
const targetCache = new Map<string, SceneNode[]>();
const TARGET_CACHE_SIZE = 16;

/** The target scene of an iou check, built (or taken from the cache) from its add_object specs. */
export async function targetScene(specs: Extract<SceneCheck, { check: "iou" }>["target"]): Promise<SceneNode[]> {
  const key = JSON.stringify(specs);
  const hit = targetCache.get(key);
  if (hit) return hit;
  const target = new BuiltinBackend();
  try {
    for (const spec of specs) await target.add(spec);
  } catch (e) {
    throw new Error(`the iou check's target scene is invalid: ${(e as Error).message}`);
  }
  const nodes = (await target.snapshot()).nodes;
  targetCache.set(key, nodes);
  if (targetCache.size > TARGET_CACHE_SIZE) targetCache.delete(targetCache.keys().next().value!);
  return nodes;
}
