import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { renderJsonSchemas } from "../../../src/core/schema/json-schema";

test("committed JSON Schemas match the zod schemas (run `npm run schema` when this fails)", () => {
  for (const [file, text] of Object.entries(renderJsonSchemas())) {
    const committed = readFileSync(path.join(__dirname, "../../../schemas", file), "utf8");
    assert.equal(committed, text, `schemas/${file} is stale`);
  }
});
