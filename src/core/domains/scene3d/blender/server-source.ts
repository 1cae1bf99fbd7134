import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The text of blender_rpc.py. It is sent to the sandbox on stdin, so it must be found on
 * the host: beside this module when run from source (tsx), under dist/ when bundled
 * (the build copies it there), or in the package's src folder.
 */
let cached: string | undefined;
export function blenderServerSource(): string {
  if (cached) return cached;
  const candidates = [
    path.join(__dirname, "blender_rpc.py"),
    path.join(__dirname, "scene3d", "blender_rpc.py"),
    path.join(__dirname, "..", "src", "core", "domains", "scene3d", "blender", "blender_rpc.py"),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`blender_rpc.py not found (looked in ${candidates.join(", ")})`);
  cached = readFileSync(found, "utf8");
  return cached;
}
