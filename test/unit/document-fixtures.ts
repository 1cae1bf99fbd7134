// Small PDFs written byte by byte for the document tests: a readable one with a page per
// string, an encrypted one (standard security handler with a user password), and garbage.

/** A PDF with one page per entry of `pages`, each showing its text in Helvetica. */
export function makePdf(pages: string[], opts: { encrypt?: boolean } = {}): Uint8Array {
  const objects: string[] = [];
  const n = pages.length;
  // 1 catalog, 2 page tree, 3 font, then a page and its content stream per page.
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(" ");
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`);
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  pages.forEach((text, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`,
    );
    const lines = text.split("\n").map((l, j) => `BT /F1 12 Tf 72 ${720 - 16 * j} Td (${l.replace(/([()\\])/g, "\\$1")}) Tj ET`);
    const stream = lines.join("\n");
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  if (opts.encrypt) {
    // R2/RC4 with owner and user hashes that no empty password matches: a reader must ask for a password.
    const hex = (seed: number) => Array.from({ length: 32 }, (_, i) => ((seed * 31 + i * 17) % 256).toString(16).padStart(2, "0")).join("");
    objects.push(`<< /Filter /Standard /V 1 /R 2 /Length 40 /O <${hex(7)}> /U <${hex(11)}> /P -3904 >>`);
  }
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  const encrypt = opts.encrypt
    ? ` /Encrypt ${objects.length} 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]`
    : "";
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** Bytes that start like a PDF and then are not one. */
export function corruptPdf(): Uint8Array {
  return new TextEncoder().encode("%PDF-1.7\n% this file was cut off during a download\n1 0 obj\n<< /Type /Cata");
}
