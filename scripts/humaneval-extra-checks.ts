/**
 * Inputs the dataset's check() lacks, for the problems where `rlenv audit` found its blind
 * spots: wrong solutions it lets pass (mutation score under 0.8) or a solution that only
 * answers the docstring's example. They are added after check() in the hidden test, in the
 * way of HumanEval+ (EvalPlus): each input stays inside the docstring's stated domain, and
 * each expected value is what the dataset's canonical solution returns on it
 * (test/unit/humaneval-extra-checks.test.ts recomputes every one with Python).
 */
export interface ExtraCheck {
  /** The call's arguments, as Python source. */
  args: string;
  /** The canonical solution's result, as Python source. */
  expected: string;
}

export const EXTRA_CHECKS: Readonly<Record<string, readonly ExtraCheck[]>> = {
  // sort_numbers: check() never has two neighbouring numerals in descending order, so a value
  // table that ties 'six' with 'seven' (a stable sort keeps their input order) passed.
  "HumanEval/19": [
    { args: "'seven six'", expected: "'six seven'" },
    { args: "'eight seven'", expected: "'seven eight'" },
    { args: "'one zero'", expected: "'zero one'" },
    { args: "'nine eight seven six five four three two one zero'", expected: "'zero one two three four five six seven eight nine'" },
    { args: "'five five one nine one'", expected: "'one one five five nine'" },
  ],
  // unique: check() is the docstring's one example, so a table of that answer passed.
  "HumanEval/34": [
    { args: "[]", expected: "[]" },
    { args: "[0]", expected: "[0]" },
    { args: "[1, 1, 1]", expected: "[1]" },
    { args: "[3, -1, 2, -1]", expected: "[-1, 2, 3]" },
    { args: "[10, 9, 8, 8, 7]", expected: "[7, 8, 9, 10]" },
  ],
  // largest_prime_factor: check() has no n whose largest prime factor is 2 (the docstring's 2048
  // is not in it), so treating 2 as not prime, or starting the search at 3, passed.
  "HumanEval/59": [
    { args: "4", expected: "2" },
    { args: "8", expected: "2" },
    { args: "2048", expected: "2" },
    { args: "9", expected: "3" },
    { args: "3072", expected: "3" },
  ],
};
