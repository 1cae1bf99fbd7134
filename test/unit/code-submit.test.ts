import assert from "node:assert/strict";
import { test } from "node:test";
import { codeDomain, customDomain } from "../../src/core/domains/code";
import type { Environment } from "../../src/core/model/environment";
import type { ToolContext } from "../../src/core/model/domain";

const env = {} as Environment;
const ctx = {} as ToolContext;

test("submit: the code domain speaks of its hidden tests; a custom environment, which may have none, does not", async () => {
  const code = codeDomain.tools(env).find((t) => t.name === "submit");
  const custom = customDomain.tools(env).find((t) => t.name === "submit");
  assert.ok(code && custom);
  assert.match(code.description, /hidden tests/);
  assert.doesNotMatch(custom.description, /hidden|tests/);
  const out = await custom.run({ summary: "done" }, ctx);
  assert.doesNotMatch(String(out.output), /hidden|tests/);
  assert.deepEqual(out.submit, { answer: "done" });
  // Everything else the custom domain offers is the code domain's, in the same order.
  assert.deepEqual(
    customDomain.tools(env).map((t) => t.name),
    codeDomain.tools(env).map((t) => t.name),
  );
  assert.deepEqual(custom.parameters, code.parameters);
});
