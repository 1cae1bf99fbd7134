import { defineTool } from "../../define-tool";
import { corpusOf, documentArgs } from "./context";

export const listDocumentsTool = defineTool({
  name: "list_documents",
  description: "List the documents you can search and read: name, number of pages, size.",
  args: documentArgs({}),
  errors: "document",
  async run(_args, ctx) {
    const corpus = await corpusOf(ctx);
    const lines = corpus.documents.map(
      (d) => `${d.name}\t${d.pages.length} page${d.pages.length === 1 ? "" : "s"}\t${Math.ceil(d.bytes / 1024)} KB\t${d.format}`,
    );
    if (corpus.documents.length === 0) lines.push("(no documents)");
    for (const p of corpus.problems) lines.push(`unreadable: ${p.message}`);
    return { output: lines.join("\n") };
  },
});
