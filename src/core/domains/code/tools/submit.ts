import type { ToolDefinition } from "../../types";

export const submitTool: ToolDefinition = {
  name: "submit",
  description:
    "Submit your work when you are done. The hidden tests run on the files in the workdir after this call; no more tool calls are possible.",
  parameters: {
    type: "object",
    properties: {
      summary: { type: "string", description: "Optional: what you changed and why" },
    },
  },
  async run(args) {
    // The oracle passes a task's reference `answer`; an agent passes a summary. Either is kept.
    const answer = args.answer ?? args.summary;
    return { output: "submitted; the hidden tests will now run", submit: { answer } };
  },
};
