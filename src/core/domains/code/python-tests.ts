/**
 * What a visible Python test file is, read from its text (not from the reward's report format):
 * pytest-style (it defines test functions or Test classes, which only a runner calls) or a
 * plain script (its top-level code is the test). Read line by line at indentation 0, which is
 * where Python's top-level statements are.
 */

const TEST_DEFINITION = /^(?:async\s+)?def\s+test\w*\s*\(|^class\s+Test\w*\s*[(:]/;

/** Top-level lines that only define things: imports, definitions, decorators, docstrings, plain assignments, comments. */
const DEFINES_ONLY =
  /^(?:$|#|import\s|from\s+\S+\s+import\s|(?:async\s+)?def\s|class\s|@|["']|[)\]}]|[A-Za-z_][\w.]*(?:\s*:[^=]+)?\s*=[^=])/;

function topLevelLines(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => l.length > 0 && !/^\s/.test(l))
    .map((l) => l.trimEnd());
}

/** A pytest-style file: a top-level `def test_…`, `async def test_…` or `class Test…`. */
export function isPytestStyle(text: string): boolean {
  return topLevelLines(text).some((l) => TEST_DEFINITION.test(l));
}

/**
 * A file that, run as a script, checks nothing: every top-level line only defines something
 * (no assert, no call, no `if __name__ == "__main__":`), so it exits 0 whatever the code under test does.
 */
export function checksNothingAsScript(text: string): boolean {
  return topLevelLines(text).every((l) => DEFINES_ONLY.test(l) && !/=\s*[\w.]+\s*\(/.test(l));
}
