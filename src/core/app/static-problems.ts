import { domainTaskProblems } from "../domains/registry";
import type { Environment } from "../model/environment";
import type { Problem } from "../model/problem";
import { authoringProblems } from "../lint/authoring-checks";

/**
 * The checks `rlenv validate` runs past the loader, for the editor's diagnostics: the domain's
 * own checks of its task fields, then the mistakes only a rollout would otherwise show (fields
 * no target has, answers the schema rejects, bad tool arguments, unusable tool parameters).
 */
export async function staticProblems(env: Environment): Promise<Problem[]> {
  return [...(await domainTaskProblems(env)), ...(await authoringProblems(env))];
}
