import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BaseStandIn, Substitution } from "../../model/harbor";

export const STAND_IN_ROOT = "rlenv/python:bookworm";
/** The Debian 13 root (scripts/image/recipes/python-trixie.txt). */
export const TRIXIE_ROOT = "rlenv/python:trixie";

/**
 * The debootstrap image's /workspace belongs to its sandbox user (1000): a task's `WORKDIR
 * /workspace` would keep that owner, and root without capabilities (CAP_DAC_OVERRIDE) could not
 * write there. Removed, so WORKDIR makes it anew, root's, as on the real base images.
 */
const NO_WORKSPACE = "RUN rmdir /workspace";

const APT = (pkgs: string) =>
  `RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${pkgs} && rm -rf /var/lib/apt/lists/*`;

const PYTHON_LINES = [
  APT("python-is-python3 python3-pip python3-venv python3-dev ca-certificates"),
  "RUN rm -f /usr/lib/python3*/EXTERNALLY-MANAGED",
  NO_WORKSPACE,
  "WORKDIR /",
];
const DEBIAN_LINES = [APT("ca-certificates"), NO_WORKSPACE, "WORKDIR /"];
const BUILDPACK_LINES = [APT("ca-certificates curl wget build-essential pkg-config"), NO_WORKSPACE, "WORKDIR /"];

/** One stand-in image under several names of its release (`debian:13`, `debian:trixie-slim`, …). */
const each = (matches: string[], s: Omit<BaseStandIn, "match">): BaseStandIn[] => matches.map((match) => ({ match, ...s }));

const TRIXIE = "Debian 13 (trixie)";
const TRIXIE_DEBIAN = {
  name: "debian-trixie",
  from: TRIXIE_ROOT,
  lines: DEBIAN_LINES,
  note: `${TRIXIE} minbase with python3 and python3-pytest`,
};
const TRIXIE_PYTHON = {
  name: "python-trixie",
  from: TRIXIE_ROOT,
  lines: PYTHON_LINES,
  note: `${TRIXIE}'s python3 (3.13) with python, pip and venv, not the requested CPython build`,
};

/**
 * The shipped table, first match wins: each Debian release by its own (a suite name or number
 * in the tag; an official image without one is current Debian, 13), then the rest on Debian 12.
 * Ubuntu's image is bare but has ca-certificates-less apt, bash, coreutils and a `ubuntu` user
 * (uid 1000): the stand-in adds what tasks rely on that Debian's minbase lacks. An official
 * `python:*` image brings `python`, `pip` that installs system-wide (Debian marks its python
 * EXTERNALLY-MANAGED: the mark is removed) and venv.
 */
export const BUILTIN_STAND_INS: readonly BaseStandIn[] = [
  {
    match: "ubuntu:*",
    name: "ubuntu",
    lines: DEBIAN_LINES,
    note: "Debian 12 (bookworm) with python3 and python3-pytest, not Ubuntu: package versions are bookworm's",
  },
  ...each(["debian:13*", "debian:trixie*", "debian:stable*", "debian:latest"], TRIXIE_DEBIAN),
  ...each(["python:3*trixie*"], TRIXIE_PYTHON),
  {
    match: "python:3*bookworm*",
    name: "python",
    lines: PYTHON_LINES,
    note: "Debian 12's python3 (3.11) with python, pip and venv, not the requested CPython build",
  },
  ...each(["python:3*bullseye*", "python:3*alpine*"], {
    name: "python",
    lines: PYTHON_LINES,
    note: "Debian 12's python3 (3.11) with python, pip and venv: neither the requested CPython build nor its distribution",
  }),
  // An official python image whose tag names no distribution is built on current Debian (13 since August 2025).
  ...each(["python:3*"], TRIXIE_PYTHON),
  ...each(["debian:12*", "debian:bookworm*"], {
    name: "debian",
    lines: DEBIAN_LINES,
    note: "Debian 12 (bookworm) minbase with python3 and python3-pytest",
  }),
  {
    match: "debian:*",
    name: "debian",
    lines: DEBIAN_LINES,
    note: "Debian 12 (bookworm) minbase with python3 and python3-pytest: not the release the tag names, whose package versions differ",
  },
  ...each(["buildpack-deps:trixie*", "buildpack-deps:latest", "buildpack-deps:stable*"], {
    name: "buildpack-trixie",
    from: TRIXIE_ROOT,
    lines: BUILDPACK_LINES,
    note: `${TRIXIE} with build-essential, python3 and python3-pytest`,
  }),
  {
    match: "buildpack-deps:*",
    name: "buildpack",
    lines: BUILDPACK_LINES,
    note: "Debian 12 (bookworm) with build-essential, python3 and python3-pytest",
  },
];

/** Where a user extends the table: $RLENV_BASE_IMAGES, else ~/.config/rlenv/base-images.json (a JSON array of BaseStandIn). */
export function userStandInsFile(): string {
  return (
    process.env.RLENV_BASE_IMAGES ??
    path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), ".config"), "rlenv", "base-images.json")
  );
}

/** The table: the user's entries first (they win), then the shipped ones. A broken user file is an error naming it. */
export function standInTable(file = userStandInsFile()): BaseStandIn[] {
  if (!existsSync(file)) return [...BUILTIN_STAND_INS];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${file}: must be a JSON array of {match, name, lines, note}`);
  const user = parsed.map((x, i): BaseStandIn => {
    const e = x as Partial<BaseStandIn>;
    if (typeof e.match !== "string" || typeof e.name !== "string" || !/^[a-z0-9][a-z0-9_.-]*$/.test(e.name))
      throw new Error(`${file}: entry ${i}: needs "match" (an image) and "name" (lower-case letters, digits, . _ -)`);
    if (!Array.isArray(e.lines) || e.lines.some((l) => typeof l !== "string"))
      throw new Error(`${file}: entry ${i}: "lines" must be an array of Dockerfile lines`);
    return {
      match: e.match,
      name: e.name,
      lines: e.lines,
      note: typeof e.note === "string" ? e.note : "",
      ...(e.from ? { from: e.from } : {}),
    };
  });
  return [...user, ...BUILTIN_STAND_INS];
}

/** The image without a registry host (`docker.io/library/ubuntu:24.04` → `ubuntu:24.04`) nor digest. */
export function shortImage(image: string): string {
  let s = image.split("@")[0] ?? image;
  s = s.replace(/^(docker\.io\/)?(library\/)?/, "");
  return s.includes(":") ? s : `${s}:latest`;
}

/** Whether an image (short form) is one a `match` pattern names: exact, or `*` standing for any run of characters. */
function matches(pattern: string, img: string): boolean {
  if (!pattern.includes("*")) return shortImage(pattern) === img;
  const re = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${re.join(".*")}$`).test(img);
}

export function findStandIn(image: string, table: readonly BaseStandIn[]): BaseStandIn | undefined {
  const img = shortImage(image);
  return table.find((e) => matches(e.match, img));
}

/** The Dockerfile of a stand-in image. */
export function standInDockerfile(s: BaseStandIn): string {
  return `FROM ${s.from ?? STAND_IN_ROOT}\n${s.lines.join("\n")}\nLABEL rlenv.standin=${s.name}\n`;
}

/** The stand-in's tag: its name and the hash of its Dockerfile, so an edited entry builds a new image. */
export function standInTag(s: BaseStandIn): string {
  return `rlenv/standin-${s.name}:${createHash("sha256").update(standInDockerfile(s)).digest("hex").slice(0, 12)}`;
}

const FROM = /^(\s*FROM\s+(?:--platform=\S+\s+)?)(\S+)(.*)$/gim;

/**
 * The Dockerfile with each base image that has a stand-in replaced by it; stage names
 * (`FROM build`) and images without one are left as they are (an image already on the
 * engine builds; one that is not fails the build, naming the table to extend).
 */
export function substituteBases(
  dockerfile: string,
  table: readonly BaseStandIn[],
): { text: string; substitutions: Substitution[]; unknown: string[] } {
  const stages = new Set([...dockerfile.matchAll(/^\s*FROM\s+.*\s+AS\s+(\S+)\s*$/gim)].map((m) => (m[1] ?? "").toLowerCase()));
  const substitutions: Substitution[] = [];
  const unknown: string[] = [];
  const text = dockerfile.replace(FROM, (line, head: string, image: string, rest: string) => {
    if (stages.has(image.toLowerCase()) || image.toLowerCase() === "scratch") return line;
    const s = findStandIn(image, table);
    if (!s) {
      if (!unknown.includes(image)) unknown.push(image);
      return line;
    }
    const tag = standInTag(s);
    if (!substitutions.some((x) => x.image === image)) substitutions.push({ image, standIn: s, tag });
    return `${head}${tag}${rest}`;
  });
  return { text, substitutions, unknown };
}

/** The directory the Dockerfile's last stage leaves as WORKDIR (relative ones joined), or null when it sets none. */
export function dockerfileWorkdir(dockerfile: string): string | null {
  let dir: string | null = null;
  for (const line of dockerfile.split("\n")) {
    if (/^\s*FROM\s/i.test(line)) dir = null;
    const m = /^\s*WORKDIR\s+(.+?)\s*$/i.exec(line);
    if (m?.[1]) {
      const w = m[1].replace(/^["']|["']$/g, "");
      dir = w.startsWith("/") ? path.posix.normalize(w) : path.posix.join(dir ?? "/", w);
    }
  }
  return dir;
}
