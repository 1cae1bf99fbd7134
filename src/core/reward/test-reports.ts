/** Counts parsed from a test run's output or report. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** Names of failing tests, for the reward breakdown. */
  failures: string[];
}

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`).exec(tag) ?? new RegExp(`\\b${name}\\s*=\\s*'([^']*)'`).exec(tag);
  return m?.[1];
};

/** JUnit XML (pytest --junitxml, Maven surefire, jest-junit…): a testcase fails when it holds <failure> or <error>. */
export function parseJUnit(xml: string): TestCounts {
  const out: TestCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  let found = false;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    found = true;
    const head = m[1] ?? "";
    const body = m[3] ?? "";
    const name = [attr(head, "classname"), attr(head, "name")].filter(Boolean).join("::");
    if (/<(failure|error)\b/.test(body)) {
      out.failed++;
      out.failures.push(name);
    } else if (/<skipped\b/.test(body)) out.skipped++;
    else out.passed++;
  }
  if (!found && !/<testsuites?\b/.test(xml)) throw new Error("not a JUnit XML report (no <testsuite> or <testcase>)");
  return out;
}

/**
 * TAP (node --test, prove, bats): top-level `ok` / `not ok` lines; `# SKIP` is skipped,
 * a failing `# TODO` is not a failure; tests the plan promised but never reported fail.
 */
export function parseTap(text: string): TestCounts {
  const out: TestCounts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  const lines = text.split("\n");
  const results = lines.map((l) => /^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?(.*)$/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  if (results.length === 0) return out;
  const top = Math.min(...results.map((m) => (m[1] ?? "").length));
  let plan: number | undefined;
  for (const l of lines) {
    const p = /^(\s*)1\.\.(\d+)/.exec(l);
    if (p && (p[1] ?? "").length === top) plan = Number(p[2]);
  }
  for (const m of results) {
    if ((m[1] ?? "").length !== top) continue;
    const desc = m[4] ?? "";
    const directive = /#\s*(SKIP|TODO)\b/i.exec(desc)?.[1]?.toUpperCase();
    if (directive === "SKIP") out.skipped++;
    else if (m[2] === "ok") out.passed++;
    else if (directive === "TODO") out.skipped++;
    else {
      out.failed++;
      out.failures.push(desc.replace(/\s*#.*$/, "").trim() || `test ${m[3] ?? "?"}`);
    }
  }
  const reported = out.passed + out.failed + out.skipped;
  if (plan !== undefined && plan > reported) {
    out.failed += plan - reported;
    out.failures.push(`${plan - reported} planned tests never reported`);
  }
  return out;
}

/** pytest's closing summary ("3 passed, 1 failed, 2 errors in 0.12s"); null when there is none. */
export function parsePytestSummary(text: string): TestCounts | null {
  const lines = text.trimEnd().split("\n").reverse();
  for (const line of lines) {
    if (!/\bin [\d.]+s\b/.test(line) && !/no tests ran/.test(line)) continue;
    const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(line)?.[1] ?? 0);
    const failures = [...text.matchAll(/^(?:FAILED|ERROR) (\S+)/gm)].map((m) => m[1] ?? "");
    return { passed: count("passed"), failed: count("failed") + count("errors?"), skipped: count("skipped"), failures };
  }
  return null;
}
