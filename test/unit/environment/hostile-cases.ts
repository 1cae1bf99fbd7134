import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A fuzz corpus of malformed environments: each must give a problem naming a file and a
 * line, never a crash or a hang. Contents are made when a case is written (some are
 * megabytes), so importing this costs nothing.
 */
export type HostileFile = string | Buffer | { symlink: string } | { fifo: true } | { socket: true };

export interface HostileCase {
  name: string;
  files: () => Record<string, HostileFile>;
  /** The file (relative to the environment folder), line and message of one problem that must be reported. */
  expect: { file: string; line: number; message: RegExp };
  /** Loader limits to pass (cases that test the caps use small ones). */
  limits?: { maxTasksBytes?: number; maxTaskLines?: number; maxManifestBytes?: number };
  /** The case cannot travel in a tar bundle as it is (a FIFO, a link): the runner refuses such entries on their own. */
  localOnly?: boolean;
}

const MANIFEST = `name: demo
domain: code
tasks: tasks.jsonl
tools: [bash, submit]
reward:
  - type: exact
`;
const TASK = `{"id":"t1","prompt":"Say hi","solution":{"answer":"hi"}}`;
const task = (id: string) => `{"id":"${id}","prompt":"Say hi","solution":{"answer":"hi"}}`;
/** A manifest that is fine plus these tasks lines. */
const tasks = (t: string | Buffer): Record<string, HostileFile> => ({ "environment.yaml": MANIFEST, "tasks.jsonl": t });
/** This manifest with a fine tasks file. */
const manifest = (m: string | Buffer | HostileFile): Record<string, HostileFile> => ({ "environment.yaml": m, "tasks.jsonl": `${TASK}\n` });
const utf16le = (s: string) => Buffer.from(s, "utf16le");
const utf16be = (s: string) => {
  const b = Buffer.from(s, "utf16le");
  for (let i = 0; i + 1 < b.length; i += 2) [b[i], b[i + 1]] = [b[i + 1]!, b[i]!];
  return b;
};
const nested = (depth: number, close: boolean) => `${"[".repeat(depth)}${close ? "]".repeat(depth) : ""}`;
const ALIAS_BOMB = `name: demo
domain: code
tasks: tasks.jsonl
tools: [bash, submit]
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
reward:
  - type: exact
`;

export const HOSTILE_CASES: HostileCase[] = [
  // Cases the loader already handled: kept so that they stay handled.
  {
    name: "unknown top-level field",
    files: () => manifest(`${MANIFEST}colour: red\n`),
    expect: { file: "environment.yaml", line: 7, message: /unknown field 'colour'/ },
  },
  {
    name: "wrong type",
    files: () => manifest(`${MANIFEST}max_turns: many\n`),
    expect: { file: "environment.yaml", line: 7, message: /expected a number/ },
  },
  {
    name: "bad JSON line",
    files: () => tasks(`${TASK}\n{"id":"t2",}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /invalid JSON/ },
  },
  {
    name: "unterminated string",
    files: () => tasks(`${TASK}\n{"id":"t2\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /unterminated string/ },
  },
  {
    name: "control character in a string",
    files: () => tasks(`{"id":"t1","prompt":"a\tb"}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /control character/ },
  },
  {
    name: "invalid escape",
    files: () => tasks(`{"id":"t1","prompt":"a\\qb"}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /invalid escape/ },
  },
  {
    name: "task line is a list",
    files: () => tasks(`${TASK}\n[1,2]\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /expected an object/ },
  },
  {
    name: "task line is a number",
    files: () => tasks(`${TASK}\n42\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /expected an object/ },
  },
  {
    name: "unknown task field",
    files: () => tasks(`{"id":"t1","promt":"x"}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /unknown field 'promt'/ },
  },
  {
    name: "__proto__ key in a task",
    files: () => tasks(`{"id":"t1","prompt":"x","__proto__":{"polluted":1}}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /unknown field '__proto__'/ },
  },
  {
    name: "duplicate task id",
    files: () => tasks(`${TASK}\n${TASK}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /duplicate task id/ },
  },
  {
    name: "trailing garbage",
    files: () => tasks(`${TASK} x\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /after the JSON value/ },
  },
  { name: "empty manifest", files: () => manifest(""), expect: { file: "environment.yaml", line: 1, message: /must be a mapping/ } },
  {
    name: "manifest of comments only",
    files: () => manifest("# nothing here\n"),
    expect: { file: "environment.yaml", line: 1, message: /must be a mapping/ },
  },
  {
    name: "manifest is a list",
    files: () => manifest("- a\n- b\n"),
    expect: { file: "environment.yaml", line: 1, message: /must be a mapping/ },
  },
  {
    name: "yaml syntax error",
    files: () => manifest(`${MANIFEST}tools: [bash\n`),
    expect: { file: "environment.yaml", line: 8, message: /invalid YAML/ },
  },
  {
    name: "two yaml documents",
    files: () => manifest(`${MANIFEST}---\nname: other\n`),
    expect: { file: "environment.yaml", line: 7, message: /invalid YAML/ },
  },
  {
    name: "tab indentation",
    files: () => manifest(`${MANIFEST}sandbox:\n\timage: x\n`),
    expect: { file: "environment.yaml", line: 8, message: /invalid YAML/ },
  },
  {
    name: "missing tasks file",
    files: () => ({ "environment.yaml": MANIFEST }),
    expect: { file: "environment.yaml", line: 3, message: /does not exist/ },
  },
  {
    name: "tasks path escapes",
    files: () => manifest(MANIFEST.replace("tasks.jsonl", "../x.jsonl")),
    expect: { file: "environment.yaml", line: 3, message: /leaves the environment folder/ },
  },
  {
    name: "tasks link points out",
    files: () => ({ "environment.yaml": MANIFEST, "tasks.jsonl": { symlink: "/etc/hostname" } }),
    expect: { file: "environment.yaml", line: 3, message: /outside the environment/ },
    localOnly: true,
  },
  { name: "empty tasks file", files: () => tasks(""), expect: { file: "tasks.jsonl", line: 1, message: /no tasks/ } },
  { name: "tasks file of blank lines", files: () => tasks("\n\n  \n"), expect: { file: "tasks.jsonl", line: 1, message: /no tasks/ } },
  {
    name: "UTF-8 BOM on the manifest",
    files: () => manifest(`\ufeff${MANIFEST}colour: red\n`),
    expect: { file: "environment.yaml", line: 7, message: /unknown field 'colour'/ },
  },
  {
    name: "UTF-8 BOM on the tasks file",
    files: () => tasks(`\ufeff${TASK}\n{"id":"t2"}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /missing required field 'prompt'/ },
  },
  {
    name: "CRLF manifest",
    files: () => manifest(`${MANIFEST}colour: red\n`.replace(/\n/g, "\r\n")),
    expect: { file: "environment.yaml", line: 7, message: /unknown field 'colour'/ },
  },
  {
    name: "CRLF tasks",
    files: () => tasks(`${TASK}\r\n{"id":"t2"}\r\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /missing required field 'prompt'/ },
  },
  {
    name: "huge line with a problem at its end",
    files: () => tasks(`${TASK}\n{"id":"t2","prompt":"${"x".repeat(4_000_000)}","oops":1}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /unknown field 'oops'/ },
  },
  {
    name: "NUL bytes in a task line",
    files: () => tasks(`${TASK}\n{"id":"t2",\0\0}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /invalid JSON/ },
  },
  {
    name: "huge number",
    files: () => tasks(`{"id":"t1","prompt":"x","max_turns":1e999}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /finite number/ },
  },
  {
    name: "prompt file missing",
    files: () => manifest(`${MANIFEST}prompt:\n  system_file: sys.md\n`),
    expect: { file: "environment.yaml", line: 8, message: /does not exist/ },
  },

  // What the fuzzing found.
  {
    name: "FIFO as tasks.jsonl",
    files: () => ({ "environment.yaml": MANIFEST, "tasks.jsonl": { fifo: true } }),
    expect: { file: "tasks.jsonl", line: 1, message: /FIFO.*not a regular file/ },
    localOnly: true,
  },
  {
    name: "FIFO as the manifest",
    files: () => ({ "environment.yaml": { fifo: true }, "tasks.jsonl": `${TASK}\n` }),
    expect: { file: "environment.yaml", line: 1, message: /FIFO.*not a regular file/ },
    localOnly: true,
  },
  {
    name: "FIFO as a prompt file",
    files: () => ({
      "environment.yaml": `${MANIFEST}prompt:\n  system_file: sys.md\n`,
      "tasks.jsonl": `${TASK}\n`,
      "sys.md": { fifo: true },
    }),
    expect: { file: "environment.yaml", line: 8, message: /not a file: FIFOs/ },
    localOnly: true,
  },
  {
    name: "socket as tasks.jsonl",
    files: () => ({ "environment.yaml": MANIFEST, "tasks.jsonl": { socket: true } }),
    expect: { file: "tasks.jsonl", line: 1, message: /socket, not a regular file/ },
    localOnly: true,
  },
  {
    name: "link to a FIFO inside the folder",
    files: () => ({ "environment.yaml": MANIFEST, "tasks.jsonl": { symlink: "pipe" }, pipe: { fifo: true } }),
    expect: { file: "tasks.jsonl", line: 1, message: /FIFO.*not a regular file/ },
    localOnly: true,
  },
  {
    name: "FIFO as a folder task's task.yaml",
    files: () => ({ "environment.yaml": MANIFEST.replace("tasks.jsonl", "tasks"), "tasks/a/task.yaml": { fifo: true } }),
    expect: { file: "tasks/a/task.yaml", line: 1, message: /FIFO.*not a regular file/ },
    localOnly: true,
  },
  {
    name: "10,000 nested [ left open",
    files: () => tasks(`${TASK}\n{"id":"t2","prompt":"x","metadata":${nested(10_000, false)}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /nest/ },
  },
  {
    name: "10,000 nested [ closed (valid JSON)",
    files: () => tasks(`${TASK}\n{"id":"t2","prompt":"x","metadata":{"a":${nested(10_000, true)}}}\n`),
    expect: { file: "tasks.jsonl", line: 2, message: /nest/ },
  },
  {
    name: "10,000 nested flow lists in the manifest",
    files: () => manifest(`${MANIFEST}metadata: ${nested(10_000, true)}\n`),
    expect: { file: "environment.yaml", line: 7, message: /nest|invalid YAML/ },
  },
  { name: "YAML alias bomb", files: () => manifest(ALIAS_BOMB), expect: { file: "environment.yaml", line: 6, message: /alias/ } },
  {
    name: "YAML alias bomb in a folder task",
    files: () => ({
      "environment.yaml": MANIFEST.replace("tasks.jsonl", "tasks"),
      "tasks/a/task.yaml": `prompt: hi\n${ALIAS_BOMB.split("\n").slice(4, 11).join("\n")}\n`,
    }),
    expect: { file: "tasks/a/task.yaml", line: 3, message: /alias/ },
  },
  {
    name: "200,000 broken task lines",
    files: () => tasks(`${Array.from({ length: 200_000 }, (_, i) => `{"id":"t${i}",}`).join("\n")}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /invalid JSON/ },
  },
  {
    name: "1.8 MB of lines that fail the schema",
    files: () =>
      tasks(`${Array.from({ length: 30_000 }, (_, i) => `{"id":"t${i}","prompt":5,"solution":{"files":"x"},"bogus":[1]}`).join("\n")}\n`),
    expect: { file: "tasks.jsonl", line: 1, message: /expected a string/ },
  },
  {
    name: "non-UTF-8 task line",
    files: () => tasks(Buffer.concat([Buffer.from(`${TASK}\n{"id":"t2","prompt":"caf`), Buffer.from([0xe9]), Buffer.from(`"}\n`)])),
    expect: { file: "tasks.jsonl", line: 2, message: /not valid UTF-8/ },
  },
  {
    name: "non-UTF-8 manifest",
    files: () => manifest(Buffer.concat([Buffer.from(`${MANIFEST}description: caf`), Buffer.from([0xe9, 0x0a])])),
    expect: { file: "environment.yaml", line: 7, message: /not valid UTF-8/ },
  },
  {
    name: "non-UTF-8 prompt file",
    files: () => ({
      "environment.yaml": `${MANIFEST}prompt:\n  system_file: sys.md\n`,
      "tasks.jsonl": `${TASK}\n`,
      "sys.md": Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]),
    }),
    expect: { file: "sys.md", line: 2, message: /not valid UTF-8/ },
  },
  {
    name: "duplicate YAML keys",
    files: () => manifest(`${MANIFEST}max_turns: 3\nmax_turns: 9\n`),
    expect: { file: "environment.yaml", line: 8, message: /'max_turns' is given twice/ },
  },
  {
    name: "duplicate YAML keys in a folder task",
    files: () => ({ "environment.yaml": MANIFEST.replace("tasks.jsonl", "tasks"), "tasks/a/task.yaml": "prompt: a\nprompt: b\n" }),
    expect: { file: "tasks/a/task.yaml", line: 2, message: /'prompt' is given twice/ },
  },
  {
    name: "UTF-16 LE manifest with BOM",
    files: () => manifest(utf16le(`\ufeff${MANIFEST}`)),
    expect: { file: "environment.yaml", line: 1, message: /UTF-16/ },
  },
  {
    name: "UTF-16 BE manifest with BOM",
    files: () => manifest(utf16be(`\ufeff${MANIFEST}`)),
    expect: { file: "environment.yaml", line: 1, message: /UTF-16/ },
  },
  {
    name: "UTF-16 LE manifest without BOM",
    files: () => manifest(utf16le(MANIFEST)),
    expect: { file: "environment.yaml", line: 1, message: /UTF-16/ },
  },
  {
    name: "UTF-16 tasks file",
    files: () => tasks(utf16le(`\ufeff${TASK}\n`)),
    expect: { file: "tasks.jsonl", line: 1, message: /UTF-16/ },
  },
  {
    name: "manifest is a folder",
    files: () => ({ "environment.yaml/x": "", "tasks.jsonl": `${TASK}\n` }),
    expect: { file: "environment.yaml", line: 1, message: /not a regular file|folder/ },
  },
  {
    name: "manifest over the size cap",
    files: () => manifest(`${MANIFEST}description: "${"x".repeat(3000)}"\n`),
    limits: { maxManifestBytes: 1024 },
    expect: { file: "environment.yaml", line: 1, message: /larger than/ },
  },
  {
    name: "tasks file over the size cap",
    files: () => tasks(`${TASK}\n`.repeat(100)),
    limits: { maxTasksBytes: 1024 },
    expect: { file: "tasks.jsonl", line: 1, message: /larger than/ },
  },
  {
    name: "tasks file over the line cap",
    files: () => tasks(`${Array.from({ length: 50 }, (_, i) => task(`t${i}`)).join("\n")}\n`),
    limits: { maxTaskLines: 20 },
    expect: { file: "tasks.jsonl", line: 21, message: /more than 20 lines/ },
  },
];

/** Writes a case into a new folder under `root` (a temporary one by default). */
export function writeHostileCase(c: HostileCase, root?: string): { dir: string; cleanup: () => void } {
  const dir = root ?? mkdtempSync(path.join(tmpdir(), "rlenv-hostile-"));
  mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(c.files())) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    if (typeof content === "string" || Buffer.isBuffer(content)) writeFileSync(p, content);
    else if ("symlink" in content) symlinkSync(content.symlink, p);
    else if ("fifo" in content) execFileSync("mkfifo", [p]);
    // A bound unix socket leaves its file behind when the binding process exits.
    else execFileSync("python3", ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", p]);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
