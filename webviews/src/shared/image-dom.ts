import { checkDataUrl, checkImage, type ImageCheck } from "../../../src/core/view/model/images";
import { h } from "./dom";

function imageOrPlaceholder(check: ImageCheck, cls: string, alt: string): HTMLElement {
  if (check.ok) return h("img", { class: cls, src: check.src, alt });
  return h("div", { class: "img-refused", role: "img", "aria-label": alt }, `[${alt} not shown: ${check.reason}]`);
}

/** An image from an observation or render (MIME + base64), or a placeholder with the reason. */
export function renderImage(mime: string, data: string, cls: string, alt: string): HTMLElement {
  return imageOrPlaceholder(checkImage(mime, data), cls, alt);
}

/** An image part of a message (a URL), or a placeholder with the reason. */
export function renderImageUrl(url: string, cls: string, alt: string): HTMLElement {
  return imageOrPlaceholder(checkDataUrl(url), cls, alt);
}
