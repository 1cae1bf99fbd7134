import { getDocumentProxy } from "unpdf";
import { DocumentError, type DocumentPage } from "../types";

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
}

function isTextItem(x: unknown): x is TextItem {
  return typeof x === "object" && x !== null && "str" in x && "transform" in x;
}

/**
 * Lay out one page's text items as lines: items whose baselines agree (within a third of
 * the font height) form a row, ordered left to right; a wide gap between two items
 * becomes a tab, so a table row of a financial statement stays one line of cells.
 */
export function layoutPage(items: TextItem[]): string {
  const rows: Array<{ y: number; h: number; items: TextItem[] }> = [];
  for (const it of items) {
    if (!it.str.trim()) continue;
    const y = it.transform[5] ?? 0;
    const h = Math.abs(it.transform[3] ?? it.height) || 10;
    const row = rows.find((r) => Math.abs(r.y - y) <= Math.max(2, Math.min(r.h, h) / 3));
    if (row) row.items.push(it);
    else rows.push({ y, h, items: [it] });
  }
  rows.sort((a, b) => b.y - a.y);
  return rows
    .map((r) => {
      r.items.sort((a, b) => (a.transform[4] ?? 0) - (b.transform[4] ?? 0));
      let line = "";
      let lastEnd = Number.NEGATIVE_INFINITY;
      for (const it of r.items) {
        const x = it.transform[4] ?? 0;
        const gap = x - lastEnd;
        if (line) line += gap > r.h * 1.5 ? "\t" : gap > r.h * 0.15 || !/\s$/.test(line) ? " " : "";
        line += it.str.trim();
        lastEnd = x + it.width;
      }
      return line.replace(/ {2,}/g, " ");
    })
    .join("\n");
}

/** Text of each page of a PDF, page numbers kept. A corrupt or encrypted file throws a DocumentError naming it. */
export async function parsePdf(bytes: Uint8Array, file: string): Promise<DocumentPage[]> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (and detaches) the buffer it is given: pass a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: true, verbosity: 0 });
  } catch (e) {
    const err = e as { name?: string; message?: string };
    if (err.name === "PasswordException")
      throw new DocumentError(file, "the PDF is encrypted (password protected); give an unencrypted copy");
    throw new DocumentError(file, `not a readable PDF (${err.message ?? String(e)})`);
  }
  try {
    const pages: DocumentPage[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push({ number: n, text: layoutPage((content.items as unknown[]).filter(isTextItem)) });
      page.cleanup();
    }
    return pages;
  } catch (e) {
    throw new DocumentError(file, `the PDF is damaged (${(e as Error).message})`);
  } finally {
    await pdf.destroy();
  }
}
