// What the Marketplace and a newcomer read from package.json: an icon, a licence, links,
// one command category, typed and scoped settings, a walkthrough whose steps exist, breakpoints
// only where the debugger reads them.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

const repo = path.resolve(import.meta.dirname, "../../..");
const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as {
  icon?: string;
  license?: string;
  keywords?: string[];
  preview?: boolean;
  bugs?: { url?: string };
  repository?: { url?: string };
  scripts: Record<string, string>;
  contributes: {
    commands: Array<{ category?: string }>;
    configuration: { properties: Record<string, { type: unknown; scope?: string; enum?: unknown[]; enumDescriptions?: unknown[] }> };
    walkthroughs?: Array<{ steps: Array<{ media: { markdown?: string; image?: string }; completionEvents?: string[] }> }>;
    breakpoints: Array<{ language: string; when?: string }>;
  };
};

test("a PNG icon, the MIT licence file, a changelog, keywords, links and the preview flag", () => {
  assert.ok(pkg.icon, "package.json names an icon");
  const icon = readFileSync(path.join(repo, pkg.icon));
  assert.deepEqual([...icon.subarray(1, 4)], [0x50, 0x4e, 0x47], "the icon is a PNG (the Marketplace refuses SVG)");
  assert.ok(icon.readUInt32BE(16) >= 128 && icon.readUInt32BE(20) >= 128, "at least 128×128");
  assert.equal(pkg.license, "MIT");
  assert.match(readFileSync(path.join(repo, "LICENSE"), "utf8"), /^MIT License/);
  assert.ok(existsSync(path.join(repo, "CHANGELOG.md")));
  assert.ok((pkg.keywords?.length ?? 0) >= 5 && (pkg.keywords?.length ?? 0) <= 30, "vsce takes up to 30 keywords");
  assert.ok(pkg.bugs?.url && pkg.repository?.url);
  assert.equal(pkg.preview, true);
  assert.equal(pkg.scripts["vscode:prepublish"], "node esbuild.mjs", "vsce builds the bundles before it packs them");
});

test("one command category; settings with a scope, counts typed integer, every enum value described", () => {
  assert.deepEqual([...new Set(pkg.contributes.commands.map((c) => c.category))], ["RL Env"]);
  for (const [key, p] of Object.entries(pkg.contributes.configuration.properties)) {
    assert.ok(p.scope, `${key} has a scope`);
    if (p.enum) assert.equal(p.enumDescriptions?.length, p.enum.length, `${key} describes each value`);
  }
  for (const key of ["rlenv.rollout.samples", "rlenv.concurrency"])
    assert.equal(pkg.contributes.configuration.properties[key]?.type, "integer", key);
  assert.deepEqual(pkg.contributes.configuration.properties["rlenv.policy.maxTokens"]?.type, ["integer", "null"]);
});

test("the walkthrough's five steps each have their page and an event that completes them", () => {
  const steps = pkg.contributes.walkthroughs?.[0]?.steps ?? [];
  assert.equal(steps.length, 5);
  for (const s of steps) {
    const media = s.media.markdown ?? s.media.image ?? "";
    assert.ok(existsSync(path.join(repo, media)), `${media} exists`);
    assert.ok((s.completionEvents ?? []).length > 0);
  }
});

test("breakpoints are offered in task files only, not in every JSON and YAML file", () => {
  assert.ok(pkg.contributes.breakpoints.length > 0);
  for (const b of pkg.contributes.breakpoints) assert.equal(b.when, "resourcePath in rlenv.taskFiles", b.language);
  const published = readFileSync(path.join(repo, "src/extension/debug/activate.ts"), "utf8");
  assert.match(published, /setContext", "rlenv\.taskFiles"/, "the extension publishes the context key the clause reads");
});
