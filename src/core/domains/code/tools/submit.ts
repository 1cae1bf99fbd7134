import { z } from "zod";
import { defineTool } from "../../define-tool";

export const submitTool = defineTool({
  name: "submit",
  description:
    "Submit your work when you are done. The hidden tests run on the files in the workdir after this call; no more tool calls are possible.",
  // Loose: the oracle passes a task's reference `answer`, which the model is not shown.
  args: z.looseObject({
    summary: z.string().optional().describe("Optional: what you changed and why"),
  }),
  errors: "code",
  async run(args) {
    // The oracle passes a task's reference `answer`; an agent passes a summary. Either is kept.
    const answer = args.answer ?? args.summary;
    return { output: "submitted; the hidden tests will now run", submit: { answer } };
  },
});
