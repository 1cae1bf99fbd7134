import type { DomainPlugin } from "../../model/domain";
import { prepareDocuments } from "./prepare";
import { readTarget } from "./target";
import { corpusOf } from "./tools/context";
import { findTool } from "./tools/find";
import { listDocumentsTool } from "./tools/list-documents";
import { readTool } from "./tools/read";
import { searchTool } from "./tools/search";
import { submitReportTool } from "./tools/submit-report";

/**
 * Long financial and legal documents: search, read and cite, then submit a structured
 * report. Everything runs in-process; no sandbox is started. The corpus is parsed and
 * indexed once per process and shared read-only by every rollout.
 */
export const documentDomain: DomainPlugin = {
  name: "document",
  tools(env) {
    return [listDocumentsTool, searchTool, readTool, findTool, submitReportTool(env)];
  },
  async prepare(env, log) {
    await prepareDocuments(env, log);
  },
  async setup(ctx) {
    // A malformed target is the environment author's error: say so before the agent starts.
    readTarget(ctx.task.id, ctx.task.target);
    await corpusOf(ctx);
  },
};
