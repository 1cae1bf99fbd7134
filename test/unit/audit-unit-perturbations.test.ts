// The audit's answer perturbations cover units and entity lists: a figure with a unit gets its
// prefix swapped (148.5 GW, 148.5 kW), a unit of another dimension (MWh) and its unit dropped,
// each of which the grader must refuse, and the same amount rewritten at another prefix
// (148,500 kW, 0.1485 GW), which it must accept; a list of names gets one dropped, added and
// swapped (refused) and its order reversed (accepted). Each is checked against the real comparators.
import assert from "node:assert/strict";
import { test } from "node:test";
import { answerVariants } from "../../src/core/audit/perturb-answer";
import { compareEntities } from "../../src/core/reward/comparators/entities";
import { compareQuantityWithUnits } from "../../src/core/reward/comparators/measure";

const ops = (gold: string) =>
  Object.fromEntries(
    answerVariants({ answer: gold }, [{ path: "answer", judge: false }])
      .filter((v) => /unit/.test(v.operator))
      .map((v) => [`${v.operator}:${(v.answer as { answer: string }).answer}`, v.expect]),
  );

test("a figure with a unit: prefix swaps, another dimension and a dropped unit refused; scale-equivalent rewritings accepted", () => {
  assert.deepEqual(ops("148.5 MW"), {
    "unit-prefix-swap:148.5 GW": "reject",
    "unit-prefix-swap:148.5 kW": "reject",
    "reformat-unit:0.1485 GW": "accept",
    "reformat-unit:148,500 kW": "accept",
    "unit-dimension-swap:148.5 MWh": "reject",
    "unit-dropped:148.5": "reject",
  });
  for (const gold of ["148.5 MW", "12 km", "250 ms", "3.5 t", "1.2 million tonnes"]) {
    const variants = answerVariants({ answer: gold }, [{ path: "answer", judge: false }]);
    assert.ok(
      variants.some((v) => v.operator === "unit-dropped"),
      gold,
    );
    for (const v of variants) {
      const r = compareQuantityWithUnits((v.answer as { answer: string }).answer, gold);
      if (v.expect === "accept") assert.equal(r.passed, true, `${gold} ${v.operator} ${JSON.stringify(v.answer)}: ${r.reason}`);
      else assert.equal(r.passed, false, `${gold} ${v.operator} ${JSON.stringify(v.answer)}: ${r.reason}`);
    }
  }
});

test("a list of names: one dropped, added or swapped is refused; the same names reordered are accepted", () => {
  const gold = ["Acme Corp.", "Beta LLC", "Gamma plc"];
  const variants = answerVariants({ parties: gold }, [{ path: "parties", judge: false }]);
  assert.deepEqual(variants.map((v) => v.operator).sort(), ["entity-added", "entity-dropped", "entity-swapped", "reformat-order"]);
  for (const v of variants) {
    const r = compareEntities((v.answer as { parties: string[] }).parties, gold);
    assert.equal(r.passed, v.expect === "accept", `${v.operator}: ${r.reason}`);
  }
});
