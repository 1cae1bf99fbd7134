import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";

/** A base image recipe: scripts/image/recipes/<name>.txt ("key: value" headers, then Debian packages). */
export interface ImageRecipe {
  name: string;
  file: string;
  tag: string;
  suite: string;
  packages: string[];
  /** Content hash of the recipe and the rootfs script: the image is rebuilt only when it changes. */
  hash: string;
}

/** The package root (the folder with our package.json), found from this file or the bundle. */
export function packageRoot(from = __dirname): string {
  let dir = from;
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg) && existsSync(path.join(dir, "scripts", "image"))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the rl-env-studio package root above ${from}`);
    dir = up;
  }
}

export function imageScriptsDir(): string {
  return path.join(packageRoot(), "scripts", "image");
}

export function parseRecipe(file: string): ImageRecipe {
  const text = readFileSync(file, "utf8");
  const headers = new Map<string, string>();
  const packages: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const h = /^([a-z]+):\s*(.*)$/.exec(line);
    if (h?.[1]) headers.set(h[1], h[2] ?? "");
    else if (/^[a-z0-9][a-z0-9+.-]*$/.test(line)) packages.push(line);
    else throw new Error(`${file}:${i + 1}: "${line}" is neither a "key: value" header nor a Debian package name`);
  });
  const tag = headers.get("tag");
  if (!tag) throw new Error(`${file}:1: the recipe needs a "tag: name:tag" line`);
  const script = readFileSync(path.join(path.dirname(path.dirname(file)), "rootfs.sh"));
  const hash = createHash("sha256").update(text).update(script).digest("hex").slice(0, 16);
  return { name: path.basename(file, ".txt"), file, tag, suite: headers.get("suite") ?? "bookworm", packages, hash };
}

/** Every recipe shipped in scripts/image/recipes. */
export function listRecipes(dir = path.join(imageScriptsDir(), "recipes")): ImageRecipe[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((f) => parseRecipe(path.join(dir, f)));
}
