/** The formats the document domain reads, by file extension. */
export type DocumentFormat = "pdf" | "html" | "markdown" | "text" | "csv";

/** One page of a document; plain text, tables as one row a line with cells separated by tabs. */
export interface DocumentPage {
  /** 1-based, as printed in a viewer and cited by agents. */
  number: number;
  text: string;
}

/** A document parsed once per content hash. */
export interface ParsedDocument {
  /** Path relative to the environment's documents folder, with '/' separators: the name agents cite. */
  name: string;
  format: DocumentFormat;
  bytes: number;
  /** sha256 of the file's bytes: the parse cache key. */
  sha256: string;
  pages: DocumentPage[];
}

/** A document that could not be read; names the file so a person can find it. */
export class DocumentError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "DocumentError";
  }
}
