import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { renderReference } from "../../src/core/docs/reference";

const ROOT = path.join(__dirname, "../..");

test("docs/reference.md is what the code gives (run `npx tsx scripts/write-docs.ts` when this fails), and the README links it", async () => {
  const text = await renderReference();
  assert.equal(readFileSync(path.join(ROOT, "docs/reference.md"), "utf8"), text, "docs/reference.md is stale");
  // Every built-in the code has is in it: a tool, a comparator, a check from each domain.
  for (const word of [
    "#### `edit_file`",
    "#### `add_object`",
    "#### `submit_report`",
    "### `money`",
    "### `on_top_of`",
    "RLENV_TRAJECTORY",
    "visible_tests/",
  ])
    assert.ok(text.includes(word), word);
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  // Named as a path, not a relative Markdown link: vsce refuses to package a README with one (no repository URL to resolve it).
  assert.match(readme, /`docs\/reference\.md` in this repository/);
  assert.doesNotMatch(readme, /see "Tools" below/);
});
