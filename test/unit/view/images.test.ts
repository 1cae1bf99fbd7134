import assert from "node:assert/strict";
import { test } from "node:test";
import { checkDataUrl, checkImage, MAX_IMAGE_BYTES } from "../../../src/core/view/model/images";

const b64 = (bytes: number[] | string) =>
  Buffer.from(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : Buffer.from(bytes)).toString("base64");
const PNG = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = b64([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]);
const WEBP = b64("RIFF\x24\x00\x00\x00WEBPVP8 ");

test("images: PNG, JPEG and WebP with valid base64 and their signature are shown", () => {
  assert.deepEqual(checkImage("image/png", PNG), { ok: true, src: `data:image/png;base64,${PNG}` });
  assert.equal(checkImage("image/jpeg", JPEG).ok, true);
  assert.equal(checkImage("IMAGE/WEBP", WEBP).ok, true);
  assert.deepEqual(checkDataUrl(`data:image/png;base64,${PNG}`), { ok: true, src: `data:image/png;base64,${PNG}` });
});

test("images: anything else gets a placeholder with the reason", () => {
  const cases: Array<[string, ReturnType<typeof checkImage>]> = [
    ["svg", checkImage("image/svg+xml", b64("<svg onload=alert(1)>"))],
    ["gif", checkImage("image/gif", b64("GIF89a"))],
    ["text in a data URL", checkDataUrl("data:image/png;base64,<script>alert(1)</script>")],
    ["not base64 URL", checkDataUrl("data:image/png,hello")],
    ["html data URL", checkDataUrl(`data:text/html;base64,${b64("<b>x</b>")}`)],
    ["remote", checkDataUrl("https://evil.invalid/x.png")],
    ["javascript", checkDataUrl("javascript:alert(1)")],
    ["bad padding", checkImage("image/png", `${PNG}A`)],
    ["quote inside", checkImage("image/png", `${PNG.slice(0, 8)}"abc`)],
    ["png that is not", checkImage("image/png", b64("hello world!"))],
    ["jpeg label on png", checkImage("image/jpeg", PNG)],
    ["empty", checkImage("image/png", "")],
    ["too big", checkImage("image/png", PNG + "A".repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4))],
  ];
  for (const [name, r] of cases) {
    assert.equal(r.ok, false, name);
    assert.ok(!r.ok && r.reason.length > 5, name);
  }
  const why = (r: ReturnType<typeof checkImage>) => (r.ok ? "" : r.reason);
  assert.match(why(checkImage("image/png", "%%%%")), /not valid base64/);
  assert.match(why(checkImage("image/png", b64("hello world!"))), /not a PNG image/);
  assert.match(why(checkImage("image/png", "A".repeat(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4))), /larger than 8 MB/);
  assert.match(why(checkDataUrl("https://evil.invalid/x.png")), /never fetched/);
});
