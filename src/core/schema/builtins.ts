import type { Domain } from "./common";

/**
 * Built-in tool names per domain, so the loader can reject a misspelt tool with a
 * suggestion. The implementations live in `core/domains/<domain>/`.
 */
export const BUILTIN_TOOLS: Record<Domain, readonly string[]> = {
  code: ["bash", "read_file", "write_file", "edit_file", "list_files", "run_tests", "submit"],
  scene3d: ["add_object", "update_object", "remove_object", "group", "query_scene", "render_view", "run_bpy", "submit"],
  document: ["list_documents", "search", "read", "find", "submit_report"],
  custom: ["bash", "read_file", "write_file", "edit_file", "list_files", "run_tests", "submit"],
};

export const ALL_BUILTIN_TOOLS: readonly string[] = [...new Set(Object.values(BUILTIN_TOOLS).flat())];
