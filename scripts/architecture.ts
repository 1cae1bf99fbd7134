/**
 * The architecture's figures, from the TypeScript compiler's syntax tree: files over 400 lines,
 * functions over 80 lines (src/ and webviews/), and the import loops between areas of src/core
 * (type-only imports included). `npx tsx scripts/architecture.ts` prints them; `--check` exits 1
 * when any limit is passed.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(__dirname, "..");
const MAX_FILE = 400;
const MAX_FUNCTION = 80;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const files = [...walk(path.join(ROOT, "src")), ...walk(path.join(ROOT, "webviews"))];
const bigFiles: Array<[number, string]> = [];
const bigFunctions: Array<[number, string]> = [];
/** area -> areas it imports. */
const edges = new Map<string, Map<string, string>>();

const coreDir = path.join(ROOT, "src", "core");
const areaOf = (file: string): string | null => {
  const rel = path.relative(coreDir, file);
  if (rel.startsWith("..")) return null;
  const first = rel.split(path.sep)[0] ?? "";
  return first.endsWith(".ts") ? first.replace(/\.ts$/, "") : first;
};

for (const file of files) {
  const text = readFileSync(file, "utf8");
  const rel = path.relative(ROOT, file);
  const lines = text.split("\n").length;
  if (lines > MAX_FILE) bigFiles.push([lines, rel]);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const n = end - start + 1;
      if (n > MAX_FUNCTION) {
        const name = (node as ts.FunctionDeclaration).name?.getText(sf) ?? "(anonymous)";
        bigFunctions.push([n, `${rel}:${start + 1} ${name}`]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const from = areaOf(file);
  if (!from) continue;
  for (const st of sf.statements) {
    const spec =
      (ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)
        ? st.moduleSpecifier.text
        : null;
    if (!spec?.startsWith(".")) continue;
    const to = areaOf(path.resolve(path.dirname(file), spec));
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    edges.get(from)?.set(to, rel);
  }
}

/** Strongly connected components of the area graph (Tarjan): each of more than one area is a loop. */
function loops(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let i = 0;
  const nodes = new Set<string>([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
  const strong = (v: string) => {
    index.set(v, i);
    low.set(v, i++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      for (;;) {
        const w = stack.pop() as string;
        on.delete(w);
        comp.push(w);
        if (w === v) break;
      }
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) strong(v);
  return out;
}

bigFiles.sort((a, b) => b[0] - a[0]);
bigFunctions.sort((a, b) => b[0] - a[0]);
const cycles = loops();
console.log(`files over ${MAX_FILE} lines: ${bigFiles.length}`);
for (const [n, f] of bigFiles) console.log(`  ${n} ${f}`);
console.log(`functions over ${MAX_FUNCTION} lines: ${bigFunctions.length}`);
for (const [n, f] of bigFunctions) console.log(`  ${n} ${f}`);
console.log(`import loops between areas of src/core: ${cycles.length}`);
for (const c of cycles) {
  console.log(`  ${c.join(", ")}`);
  for (const a of c) for (const [b, via] of edges.get(a) ?? []) if (c.includes(b)) console.log(`    ${a} -> ${b} (${via})`);
}
if (process.argv.includes("--check") && (bigFiles.length || bigFunctions.length || cycles.length)) process.exit(1);
