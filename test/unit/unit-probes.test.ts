// Figures with physical units, through `quantity`, `number` and `auto`: every correct conversion
// (prefixes, scale words, temperature scales, binary and decimal bytes) scores 1, and every wrong
// unit (another prefix, another dimension, no unit) scores 0. The table is the probe table.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import "../../src/core/reward/comparators/basic";
import "../../src/core/reward/comparators/document";
import { inferComparator } from "../../src/core/reward/comparators/auto";
import { compareQuantityWithUnits } from "../../src/core/reward/comparators/measure";
import { findComparator } from "../../src/core/reward/comparators/registry";
import { findMeasures } from "../../src/core/reward/comparators/units";
import { FieldSpec } from "../../src/core/schema/verifier";

/** [gold, answers that state it, answers that do not] */
const UNIT_PROBES: Array<[string, string[], string[]]> = [
  [
    "148.5 MW",
    ["148.5 MW", "148,500 kW", "0.1485 GW", "148500000 W", "148.5 megawatts", "The plant's capacity is 148.5 MW."],
    ["148.5 GW", "148.5 kW", "148.5", "148.5 MWh", "148.5 m", "150 MW", "148.5 MW or 150 MW"],
  ],
  ["12 km", ["12 km", "12,000 m", "12000 metres", "1,200,000 cm"], ["12 m", "12 mi", "12 kg", "12"]],
  ["3.5 t", ["3.5 t", "3,500 kg", "3.5 tonnes", "3500000 g"], ["3.5 kg", "3.5 tn", "3.5 kN", "3.5"]],
  ["20 °C", ["20 °C", "293.15 K", "68 °F", "20 celsius"], ["20 K", "20 °F", "293.15", "20 m"]],
  ["250 ms", ["250 ms", "0.25 s", "0.25 seconds", "250000 µs"], ["250 s", "250 µs", "250 m", "250"]],
  ["4 KiB", ["4 KiB", "4096 bytes", "4096 B"], ["4 kB", "4000 bytes", "4 MiB", "4"]],
  ["2 MB", ["2 MB", "2,000,000 bytes", "2000 kB"], ["2 MiB", "2 Mb", "2 GB"]],
  [
    "1.2 million tonnes",
    ["1.2 million tonnes", "1,200,000 t", "1.2 Mt", "1,200 thousand tonnes"],
    ["1.2 million kg", "1.2 tonnes", "1.2 million", "1200 kt"],
  ],
  ["100 km/h", ["100 km/h", "27.78 m/s"], ["100 m/s", "100 km", "100 mph"]],
];

const spec = FieldSpec.parse({ comparator: "quantity" });
const ctx = {
  field: "v",
  answer: {},
  task: { id: "t", prompt: "", target: {}, source: { file: "", line: 1, index: 0 } },
  events: [],
} as never;

describe("unit probes", () => {
  for (const [gold, right, wrong] of UNIT_PROBES) {
    test(`${gold}: auto picks quantity`, () => assert.equal(inferComparator(gold), "quantity"));
    for (const name of ["quantity", "number", "auto"]) {
      test(`${gold} through ${name}: conversions accepted, wrong units refused`, async () => {
        const cmp = findComparator(name)!;
        const verdicts = async (xs: string[]) =>
          Promise.all(xs.map(async (a) => [a, (await cmp(a, gold, { ...spec, comparator: name as never }, ctx)).passed] as const));
        assert.deepEqual(
          (await verdicts(right)).filter(([, ok]) => !ok),
          [],
          "correct conversions refused",
        );
        assert.deepEqual(
          (await verdicts(wrong)).filter(([, ok]) => ok),
          [],
          "wrong units accepted",
        );
      });
    }
  }
  test("the reason names the dimensions and the missing unit", () => {
    assert.match(compareQuantityWithUnits("148.5 MWh", "148.5 MW").reason, /energy.*power/);
    assert.match(compareQuantityWithUnits("148.5", "148.5 MW").reason, /states no unit/);
  });
  test("words after figures are not units; 3M is not molar", () => {
    assert.deepEqual(findMeasures("5 in 2022, 3M, 12 employees, 7 each, 3 at a time"), []);
  });
  test("a gold without a unit is compared as a number", () => {
    assert.equal(compareQuantityWithUnits("1.2 million", 1200000).passed, true);
    assert.equal(compareQuantityWithUnits("1.3 million", 1200000).passed, false);
  });
});
