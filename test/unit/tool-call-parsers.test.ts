import assert from "node:assert/strict";
import { test } from "node:test";
import { hermesParser, toolCallParser } from "../../src/core/tokens/tool-call-parsers";

test("hermes parser: calls out of the text, broken JSON kept as a call, the rest as content", () => {
  const p = hermesParser.parse(
    'Let me look.\n<tool_call>\n{"name": "show", "arguments": {"path": "a"}}\n</tool_call>\n<tool_call>\n{"name": "put", "arguments": {"path": \n</tool_call>',
    3,
  );
  assert.equal(p.content, "Let me look.");
  assert.deepEqual(p.calls[0], { id: "call_3_0", name: "show", arguments: '{"path":"a"}' });
  assert.equal(p.calls[1]!.name, "put");
  assert.match(p.calls[1]!.arguments, /"path":$/);
  assert.deepEqual(hermesParser.parse("no calls here", 0), { content: "no calls here", calls: [] });
});

test("parsers by name: qwen is hermes; an unknown name is a clear error", () => {
  assert.equal(toolCallParser("qwen"), hermesParser);
  assert.throws(() => toolCallParser("llama"), /tool call parser 'llama' is not known \(known: hermes, qwen\)/);
});
