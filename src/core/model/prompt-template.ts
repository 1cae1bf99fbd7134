import type { Environment } from "./environment";
import type { LoadedTask } from "./environment";

/**
 * Fill `{{task.prompt}}`, `{{task.id}}`, `{{task.metadata.x}}`, `{{env.name}}`,
 * `{{env.description}}` in a prompt template. A placeholder with no value is left as
 * written, so a typo shows up in the trajectory instead of vanishing.
 */
export function renderTemplate(template: string, env: Environment, task: LoadedTask): string {
  const scope: Record<string, unknown> = {
    task: { id: task.id, prompt: task.prompt, metadata: task.metadata ?? {} },
    env: { name: env.manifest.name, description: env.manifest.description, domain: env.manifest.domain },
  };
  return template.replace(/\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g, (whole, dotted: string) => {
    let cur: unknown = scope;
    for (const k of dotted.split(".")) {
      if (cur === null || typeof cur !== "object") return whole;
      cur = (cur as Record<string, unknown>)[k];
    }
    if (cur === undefined) return whole;
    return typeof cur === "string" ? cur : JSON.stringify(cur);
  });
}
