/**
 * Which images from a trajectory the viewer shows: only PNG, JPEG or WebP given as
 * valid base64 under a size cap, whose first bytes are that format's signature. Anything
 * else (arbitrary text in a `data:` URL, another type, a remote URL) gets a placeholder
 * saying why, so nothing unchecked reaches an `<img src>`.
 */
export type ImageCheck = { ok: true; src: string } | { ok: false; reason: string };

/** Decoded bytes an image may have (base64 is 4/3 of it). */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;
const MIMES = new Set(["image/png", "image/jpeg", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DATA_URL = /^data:([^;,]*);base64,/i;

function startsWith(bytes: string, sig: string, at = 0): boolean {
  return bytes.slice(at, at + sig.length) === sig;
}

function signatureFits(mime: string, head: string): boolean {
  if (mime === "image/png") return startsWith(head, "\x89PNG\r\n\x1a\n");
  if (mime === "image/jpeg") return startsWith(head, "\xff\xd8\xff");
  return startsWith(head, "RIFF") && startsWith(head, "WEBP", 8);
}

/** An image given as a MIME type and its base64 data. */
export function checkImage(mime: string, data: string): ImageCheck {
  const type = mime.trim().toLowerCase();
  if (!MIMES.has(type)) return { ok: false, reason: `type ${JSON.stringify(mime.slice(0, 40))} is not PNG, JPEG or WebP` };
  if (data.length === 0) return { ok: false, reason: "no image data" };
  if (data.length > Math.ceil(MAX_IMAGE_BYTES / 3) * 4) return { ok: false, reason: `larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB` };
  if (data.length % 4 !== 0 || !BASE64.test(data)) return { ok: false, reason: "the data is not valid base64" };
  if (!signatureFits(type, atob(data.slice(0, 16)))) return { ok: false, reason: `the data is not a ${type.slice(6).toUpperCase()} image` };
  return { ok: true, src: `data:${type};base64,${data}` };
}

/** An image given as a URL (a message's image part): only a checked base64 `data:` URL is shown. */
export function checkDataUrl(url: string): ImageCheck {
  const m = DATA_URL.exec(url);
  if (!m)
    return {
      ok: false,
      reason: url.startsWith("data:") ? "not a base64 data: URL" : "not an embedded image (remote images are never fetched)",
    };
  return checkImage(m[1]!, url.slice(m[0].length));
}
