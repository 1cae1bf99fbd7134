import assert from "node:assert/strict";
import { test } from "node:test";
import { visibleBidi, visibleName } from "../../../src/core/view/model/visible-text";

test("names: bidirectional and invisible controls are shown as code points, nothing else changes", () => {
  assert.equal(visibleName("P\u202Egnp.701"), "P⟨U+202E⟩gnp.701");
  assert.equal(visibleName("a\u2066b\u2069c\u200Fd\u061Ce\u0007f"), "a⟨U+2066⟩b⟨U+2069⟩c⟨U+200F⟩d⟨U+061C⟩e⟨U+0007⟩f");
  for (const plain of ["stats.py", "données/résumé.txt", "日本語.md", "emoji 🙂.txt", "tab\tand\nnewline"])
    assert.equal(visibleName(plain), plain);
  assert.doesNotMatch(
    visibleName("x\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C\uFEFF"),
    /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\uFEFF]/,
  );
});

test("free text: only the bidirectional controls become visible; right-to-left script, tabs and newlines stay", () => {
  assert.equal(visibleBidi("report\u202Etxt.exe"), "report⟨U+202E⟩txt.exe");
  assert.equal(visibleBidi("\u2067abc\u2069 \u200Ex\u200F"), "⟨U+2067⟩abc⟨U+2069⟩ ⟨U+200E⟩x⟨U+200F⟩");
  for (const plain of ["שלום עולם", "مرحبا", "a\tb\nc", "zero\u200bwidth"]) assert.equal(visibleBidi(plain), plain);
  assert.doesNotMatch(
    visibleBidi("\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C"),
    /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/,
  );
});
