import type { DocumentPage } from "../types";

/**
 * Plain text and Markdown. A form feed starts a new page (the `pdftotext` convention, used
 * for filings committed as extracted text), so page numbers survive the round trip.
 */
export function parseText(text: string): DocumentPage[] {
  const body = text.replace(/\r\n?/g, "\n");
  const pages = body.split("\f");
  if (pages.length > 1 && pages[pages.length - 1]?.trim() === "") pages.pop();
  return pages.map((t, i) => ({ number: i + 1, text: t.replace(/^\n+|\s+$/g, "") }));
}
