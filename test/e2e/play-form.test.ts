import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { findDomain } from "../../src/core/domains/registry";
import { loadEnvironment } from "../../src/core/environment/load-environment";
import { buildToolset } from "../../src/core/rollout/toolset";
import { renderPage } from "../../src/core/view/page";
import { PlayFromApp, type PlayState } from "../../src/core/view/protocol/play";
import { toPlayMessages, toPlayTools } from "../../src/extension/human/convert";
import { missing } from "../support/services";
import { launch, REPO, screenshot, watchErrors } from "./support/browser";

/**
 * The Play Task app (the built bundle, the page the extension serves: nonce CSP) in
 * Chromium. A webview's host is VS Code; here the page's `acquireVsCodeApi` records what the
 * app posts, and the test posts the state the extension would (built from the real
 * code-stdio tools by the extension's own converters). The real host is covered by the
 * extension-host suite (test/extension/suite/human.suite.ts).
 */
const skip = missing("chromium");
let browser: Browser;
let server: Server;
let origin = "";

const ALL_KINDS = {
  name: "configure",
  description: "A custom tool using every kind of field.",
  parameters: {
    type: "object",
    properties: {
      name: { type: "string", description: "What to call it" },
      count: { type: "integer", description: "How many" },
      verbose: { type: "boolean" },
      level: { enum: ["low", "high"] },
      tags: { type: "array", items: { type: "string" } },
      extra: { type: "object" },
    },
    required: ["name", "count"],
  },
};

async function state(): Promise<PlayState> {
  const { env } = loadEnvironment(path.join(REPO, "environments", "code-stdio"));
  assert.ok(env);
  const tools = buildToolset(env, await findDomain(env.manifest.domain)).specs;
  const task = env.tasks.find((t) => t.id === "sum-numbers") ?? env.tasks[0]!;
  return {
    title: `${env.manifest.name} · ${task.id}`,
    phase: "your-turn",
    turn: 1,
    maxTurns: env.manifest.max_turns,
    messages: toPlayMessages([
      { role: "system", content: "You write Python 3 programs." },
      { role: "user", content: task.prompt },
      { role: "assistant", content: "Look first.", tool_calls: [{ id: "c1", name: "list_files", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "examples.json\nsolution.py\n<script>alert(1)</script>" },
    ]),
    tools: [...toPlayTools(tools), ALL_KINDS],
  };
}

/** Posts a host message to the app as VS Code would (a window message event). */
function post(page: Page, st: PlayState): Promise<unknown> {
  return page.evaluate(`window.postMessage(${JSON.stringify({ kind: "state", state: st })}, "*")`);
}

async function open(): Promise<{ page: Page; errors: string[]; sent: () => Promise<unknown[]> }> {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors = watchErrors(page);
  // A string, not a function: tsx would wrap a function in helpers the page does not have.
  await page.addInitScript(
    "window.__sent = []; let saved; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(m), getState: () => saved, setState: (s) => { saved = s; } });",
  );
  await page.goto(`${origin}/play.html`);
  await page.waitForFunction("window.__sent.some((m) => m.kind === 'ready')");
  const s = await state();
  await post(page, s);
  await page.waitForSelector(".tool-picker button[data-tool='bash']");
  const sent = () => page.evaluate("window.__sent.filter((m) => m.kind !== 'ready')") as Promise<unknown[]>;
  return { page, errors, sent };
}

describe("Play Task form in Chromium", { skip }, () => {
  before(async () => {
    const dist = path.join(REPO, "dist", "webviews");
    server = createServer((req, res) => {
      const name = (req.url ?? "/").split("?")[0]!.slice(1);
      if (name === "play.html") {
        res.writeHead(200, { "content-type": "text/html" });
        res.end(
          renderPage({
            app: "play",
            title: "Play",
            cspSource: origin,
            scriptUri: `${origin}/play.js`,
            styleUri: `${origin}/play.css`,
            backend: "webview",
          }),
        );
        return;
      }
      if (name === "favicon.ico") return void res.writeHead(204).end(); // the browser asks; a webview never does
      if (!/^[\w.-]+$/.test(name)) return void res.writeHead(404).end();
      try {
        const body = readFileSync(path.join(dist, name));
        res.writeHead(200, {
          "content-type": name.endsWith(".js") ? "text/javascript" : name.endsWith(".css") ? "text/css" : "application/octet-stream",
        });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  test("shows the conversation as text, generates forms from the tools' schemas, and posts typed moves", async () => {
    const { page, errors, sent } = await open();
    assert.match(String(await page.locator("header.top").textContent()), /code-stdio · sum-numbers[\s\S]*your turn[\s\S]*turn 2 of 20/);
    // Tool output is text, never markup.
    const last = page.locator(".msg.last-observation pre.text");
    assert.match(String(await last.textContent()), /<script>alert\(1\)<\/script>/);
    assert.equal(await page.locator(".conversation script").count(), 0);

    // write_file: two required strings; an empty form is refused in place, nothing is sent.
    await page.click(".tool-picker button[data-tool='write_file']");
    await page.waitForSelector("form.tool-form[data-tool='write_file']");
    assert.equal(await page.locator("form[data-tool='write_file'] .field .required").count(), 2);
    await page.click("form[data-tool='write_file'] button[type='submit']");
    assert.match(String(await page.locator("form[data-tool='write_file'] .form-error").textContent()), /Fix the marked fields/);
    assert.deepEqual(await sent(), []);
    await page.fill("form[data-tool='write_file'] [name='path']", "solution.py");
    await page.fill("form[data-tool='write_file'] [name='content']", "print(1)\n");
    await page.fill("form[data-tool='write_file'] textarea.note", "Writing it.");
    await screenshot(page, "play-form-write-file");
    await page.click("form[data-tool='write_file'] button[type='submit']");
    let moves = await sent();
    assert.equal(moves.length, 1);
    assert.deepEqual(PlayFromApp.parse(moves[0]), {
      kind: "move",
      action: { kind: "tool", name: "write_file", arguments: { path: "solution.py", content: "print(1)\n" }, content: "Writing it." },
    });

    // Every kind of field: integer, boolean, enum, list of strings, raw JSON for an object.
    await page.click(".tool-picker button[data-tool='configure']");
    const f = "form[data-tool='configure']";
    await page.waitForSelector(f);
    await page.fill(`${f} [name='name']`, "probe");
    await page.fill(`${f} [name='count']`, "2.5");
    await page.check(`${f} [name='verbose']`);
    await page.selectOption(`${f} [name='level']`, { label: "high" });
    await page.fill(`${f} [name='tags']`, "a\nb");
    await page.fill(`${f} [name='extra']`, '{"k": [1, 2]}');
    await page.click(`${f} button[type='submit']`);
    assert.match(String(await page.locator(`${f} .field.kind-integer .field-error`).textContent()), /not an integer/);
    await page.fill(`${f} [name='count']`, "3");
    await screenshot(page, "play-form-all-kinds");
    await page.click(`${f} button[type='submit']`);
    moves = await sent();
    assert.deepEqual(PlayFromApp.parse(moves[1]), {
      kind: "move",
      action: {
        kind: "tool",
        name: "configure",
        arguments: { name: "probe", count: 3, verbose: true, level: "high", tags: ["a", "b"], extra: { k: [1, 2] } },
      },
    });

    // The raw JSON editor starts from the form's values and sends the text as typed.
    await page.check(`${f} .raw-toggle input`);
    assert.match(await page.locator(`${f} textarea.raw-json`).inputValue(), /"count": 3/);
    assert.equal(await page.locator(`${f} .fields`).isVisible(), false);
    await page.fill(`${f} textarea.raw-json`, '{"name": "raw", "count": 1}');
    await page.click(`${f} button[type='submit']`);
    moves = await sent();
    assert.deepEqual(PlayFromApp.parse(moves[2]), {
      kind: "move",
      action: { kind: "tool", name: "configure", arguments: '{"name": "raw", "count": 1}' },
    });

    // A final message instead of a tool call.
    await page.fill("form.final-form textarea.final", "The answer is 42.");
    await page.click("form.final-form button[type='submit']");
    moves = await sent();
    assert.deepEqual(PlayFromApp.parse(moves[3]), { kind: "move", action: { kind: "message", content: "The answer is 42." } });
    assert.deepEqual(errors, [], "no page errors or CSP violations");
  });

  test("a finished game shows status and reward and offers the trajectory; no move form", async () => {
    const { page, sent } = await open();
    const s = { ...(await state()), phase: "finished" as const, result: { status: "completed", reward: 1, file: "/runs/x.jsonl" } };
    await post(page, s);
    await page.waitForSelector("header.top .badge.completed");
    assert.equal(await page.locator(".reward").textContent(), "1");
    assert.equal(await page.locator("form.tool-form").count(), 0);
    await page.click("header.top button.primary");
    assert.deepEqual(await sent(), [{ kind: "openTrajectory" }]);
    await screenshot(page, "play-form-finished");
  });
});
