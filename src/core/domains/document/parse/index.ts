import path from "node:path";
import { DocumentError, type DocumentFormat, type DocumentPage } from "../types";
import { parseCsv } from "./csv";
import { parseHtml } from "./html";
import { parsePdf } from "./pdf";
import { parseText } from "./text";

const BY_EXTENSION: Record<string, DocumentFormat> = {
  ".pdf": "pdf",
  ".html": "html",
  ".htm": "html",
  ".md": "markdown",
  ".markdown": "markdown",
  ".txt": "text",
  ".text": "text",
  ".csv": "csv",
};

/** The format of a file by its extension; undefined for files the domain does not read. */
export function formatOf(file: string): DocumentFormat | undefined {
  return BY_EXTENSION[path.extname(file).toLowerCase()];
}

/** Parse a document's bytes into pages. Throws a DocumentError naming `file` when it cannot. */
export async function parseDocument(bytes: Uint8Array, format: DocumentFormat, file: string): Promise<DocumentPage[]> {
  if (format === "pdf") return parsePdf(bytes, file);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new DocumentError(file, "not valid UTF-8 text");
  }
  if (format === "html") return parseHtml(text);
  if (format === "csv") return parseCsv(text, file);
  return parseText(text.replace(/^\uFEFF/, ""));
}
