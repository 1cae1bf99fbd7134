/**
 * Harbor's reward files, read as its verifier reads them: reward.json first (an object whose
 * numeric values are the rewards; booleans and strings are dropped; with no "reward" key, a
 * reward.txt beside it adds one), else reward.txt (a single int or float, key "reward").
 * Neither file: Harbor's RewardFileNotFoundError.
 */
export function parseRewards(
  json: string | undefined,
  txt: string | undefined,
): { ok: true; values: Record<string, number> } | { ok: false; message: string } {
  const fromTxt = (t: string): number | null => {
    const s = t.trim();
    const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : null;
    // "1e999" is Infinity, which clamping would turn into a full reward.
    return n !== null && Number.isFinite(n) ? n : null;
  };
  if (json !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(json);
    } catch (e) {
      return { ok: false, message: `/logs/verifier/reward.json is not JSON: ${(e as Error).message}` };
    }
    if (typeof v !== "object" || v === null || Array.isArray(v))
      return { ok: false, message: "/logs/verifier/reward.json must be a JSON object of reward names to numbers" };
    const values: Record<string, number> = {};
    for (const [k, x] of Object.entries(v)) if (typeof x === "number" && Number.isFinite(x)) values[k] = x;
    if (!("reward" in values) && txt !== undefined) {
      const r = fromTxt(txt);
      if (r !== null) values.reward = r;
    }
    if (Object.keys(values).length === 0) return { ok: false, message: "/logs/verifier/reward.json holds no numeric reward" };
    return { ok: true, values };
  }
  if (txt !== undefined) {
    const r = fromTxt(txt);
    if (r === null)
      return { ok: false, message: `/logs/verifier/reward.txt must hold one number, not ${JSON.stringify(txt.slice(0, 80))}` };
    return { ok: true, values: { reward: r } };
  }
  return {
    ok: false,
    message: "test.sh wrote neither /logs/verifier/reward.json nor /logs/verifier/reward.txt (Harbor's RewardFileNotFoundError)",
  };
}
