import type { ToolDefinition } from "../model/domain";

/** The built-in `submit`: every environment gets it unless its domain brings its own. */
export const submitTool: ToolDefinition = {
  name: "submit",
  description: "Finish the task. Pass your final answer if the task asks for one; your work is graded after this call.",
  parameters: {
    type: "object",
    properties: { answer: { description: "Your final answer, if the task asks for one (text, number or JSON object)" } },
  },
  async run(args) {
    return { output: "Submitted.", submit: "answer" in args ? { answer: args.answer } : {} };
  },
};
