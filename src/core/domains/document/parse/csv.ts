import { DocumentError, type DocumentPage } from "../types";

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and new lines. */
export function parseCsvRecords(text: string, file: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let quoteLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === "\n") line++;
        field += c;
      }
    } else if (c === '"' && field === "") {
      quoted = true;
      quoteLine = line;
    } else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      line++;
    } else field += c;
  }
  if (quoted) throw new DocumentError(file, `line ${quoteLine}: a quoted field is never closed`);
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

const ROWS_PER_PAGE = 100;

/** A CSV as pages of 100 rows, the header repeated on each page, cells tab-separated. */
export function parseCsv(text: string, file: string): DocumentPage[] {
  const [header, ...rows] = parseCsvRecords(text.replace(/^\uFEFF/, ""), file);
  if (!header) return [{ number: 1, text: "" }];
  const pages: DocumentPage[] = [];
  for (let i = 0; i === 0 || i < rows.length; i += ROWS_PER_PAGE) {
    const lines = [header, ...rows.slice(i, i + ROWS_PER_PAGE)].map((r) => r.join("\t"));
    pages.push({ number: pages.length + 1, text: lines.join("\n") });
  }
  return pages;
}
