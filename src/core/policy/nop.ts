import { PlannedPolicy } from "./scripted";
import { submitToolName } from "./submit-name";
import type { PolicyReply, PolicyRequest } from "./types";

/** Submits at once without touching anything: an environment whose nop scores is broken. */
export class NopPolicy extends PlannedPolicy {
  constructor() {
    super("nop", []);
  }

  override async next(req: PolicyRequest): Promise<PolicyReply> {
    if (this.plan.length === 0) this.plan.push({ content: null, calls: [{ name: submitToolName(req.tools), arguments: "{}" }] });
    return super.next(req);
  }
}
