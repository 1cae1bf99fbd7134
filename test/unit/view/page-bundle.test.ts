import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import vm from "node:vm";
import { type RunningViewServer, startViewServer, targetFor } from "../../../src/core/view/server/http-server";
import { inlineApp, scriptSafe, styleSafe } from "../../../src/core/view/server/page-bundle";
import { writeBigRollout } from "../../fixtures/trajectories";

const servers: RunningViewServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** A bundle whose strings, template and regular expression hold what would end or confuse a script element. */
const HOSTILE_BUNDLE = [
  'globalThis.out = ["</script><script>alert(1)</script>", `<!-- <script>`, /<!--[\\s\\S]*?-->/.test("<!-- x -->"), "</SCRIPT >"];',
  "// a comment that says </script> too",
].join("\n");

test("scriptSafe: no `</script`, `<script` or `<!--` is left, and the module means what it meant", () => {
  const safe = scriptSafe(HOSTILE_BUNDLE);
  assert.doesNotMatch(safe, /<\/?script|<!--/i);
  const run = (code: string) => {
    const box: { out?: unknown } = {};
    vm.runInNewContext(code.replace("globalThis.out", "box.out"), { box });
    return JSON.parse(JSON.stringify(box.out)) as unknown;
  };
  assert.deepEqual(run(safe), run(HOSTILE_BUNDLE));
  assert.deepEqual(run(safe), ["</script><script>alert(1)</script>", "<!-- <script>", true, "</SCRIPT >"]);
});

test("styleSafe: no `</style` is left", () => {
  assert.equal(
    styleSafe('a::after { content: "</style><script>x</script>"; } /* </STYLE> */'),
    'a::after { content: "<\\/style><script>x</script>"; } /* <\\/STYLE> */',
  );
});

test("inlineApp: null where the build wrote no page bundle; read once otherwise", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-page-bundle-"));
  const assets = path.join(dir, "webviews");
  mkdirSync(assets);
  assert.equal(inlineApp(assets, "trajectory"), null);
  mkdirSync(path.join(dir, "view-pages"));
  writeFileSync(path.join(dir, "view-pages", "dashboard.js"), "export{};");
  assert.deepEqual(inlineApp(assets, "dashboard"), { script: "export{};", style: "" });
});

test("http: the app's bundle and styles come inside the page, under the page's nonce, with init after them", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "rlenv-page-inline-"));
  const file = path.join(dir, "rollouts", "big.jsonl");
  mkdirSync(path.dirname(file), { recursive: true });
  await writeBigRollout(file, 50, 256 * 1024);
  const assets = path.join(dir, "webviews");
  mkdirSync(assets);
  writeFileSync(path.join(assets, "trajectory.js"), 'import"./chunk-A.js";');
  mkdirSync(path.join(dir, "view-pages"));
  writeFileSync(path.join(dir, "view-pages", "trajectory.js"), HOSTILE_BUNDLE);
  writeFileSync(path.join(dir, "view-pages", "trajectory.css"), "body { color: red; } /* </style> */");

  const server = await startViewServer(targetFor(file), { assetsDir: assets });
  servers.push(server);
  const res = await fetch(server.url);
  const html = await res.text();
  const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
  assert.ok(nonce, "no nonce in the policy");
  // One module script, inline, under the nonce; nothing fetched for it.
  const modules = [...html.matchAll(/<script type="module"([^>]*)>/g)].map((m) => m[1] ?? "");
  assert.deepEqual(modules, [` async nonce="${nonce}"`]);
  assert.ok(!html.includes("modulepreload") && !html.includes('rel="stylesheet"'));
  assert.match(html, /<style>body \{ color: red; \} \/\* <\\\/style> \*\/<\/style>/);
  // The hostile strings end no element: the page's only script ends are the module's and the init block's.
  assert.equal(html.match(/<\/script>/g)?.length, 2);
  assert.ok(!html.includes("<script><"), html.slice(0, 400));
  assert.ok(html.indexOf('id="rlenv-init"') > html.indexOf("globalThis.out"));
  // Parts loaded later find the bundles' folder.
  assert.match(html, /data-assets="\/assets\/"/);

  // Off (the benchmark's before), the page links the split bundle as it did.
  const plain = await startViewServer(targetFor(file), { assetsDir: assets, firstScreen: false });
  servers.push(plain);
  const bare = await (await fetch(plain.url)).text();
  assert.match(bare, /<script type="module" nonce="[^"]+" src="\/assets\/trajectory.js"><\/script>/);
});
