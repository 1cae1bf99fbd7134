import { z } from "zod";
import { defineTool } from "../../define-tool";

/** The submit tool, saying what grades the work: the code domain's hidden tests, or a custom environment's own verifiers. */
function submitToolGradedBy(after: string, output: string) {
  return defineTool({
    name: "submit",
    description: `Submit your work when you are done. ${after}; no more tool calls are possible.`,
    // Loose: the oracle passes a task's reference `answer`, which the model is not shown.
    args: z.looseObject({
      summary: z.string().optional().describe("Optional: what you changed and why"),
    }),
    errors: "code",
    async run(args) {
      // The oracle passes a task's reference `answer`; an agent passes a summary. Either is kept.
      const answer = args.answer ?? args.summary;
      return { output, submit: { answer } };
    },
  });
}

export const submitTool = submitToolGradedBy(
  "The hidden tests run on the files in the workdir after this call",
  "submitted; the hidden tests will now run",
);

/** A custom environment need not have hidden tests: its verifiers are whatever the manifest names. */
export const customSubmitTool = submitToolGradedBy(
  "The environment's verifier grades the files in the workdir after this call",
  "submitted; your work will now be graded",
);
