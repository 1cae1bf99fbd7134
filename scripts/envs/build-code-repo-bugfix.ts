/**
 * Writes the oracle patch of each environments/code-repo-bugfix task.
 *
 *   npx tsx scripts/envs/build-code-repo-bugfix.ts [--check]
 *
 * With --check it writes nothing and exits 1 when a task.yaml is not what it would write.
 * The buggy repositories (tasks/<id>/files), their visible and hidden tests and the
 * issue texts are written by hand. The fix of each is kept here as exact string
 * replacements; this script applies them to a copy of the repository and stores the
 * unified diff (what `git apply` / `patch -p1` take) as `solution.patch` in task.yaml.
 * A replacement that does not match exactly once stops the script.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseDocument } from "yaml";

type Fix = { file: string; replace: Array<[string, string]> };

const FIXES: Record<string, Fix[]> = {
  "inventory-total": [
    {
      file: "inventory/models.py",
      replace: [['price_cents=int(float(row["price"]) * 100),', 'price_cents=int(round(float(row["price"]) * 100)),']],
    },
    {
      file: "inventory/report.py",
      replace: [["return sum(item.price_cents for item in items)", "return sum(item.price_cents * item.quantity for item in items)"]],
    },
  ],
  "calendar-days": [
    {
      file: "calendar_utils/leap.py",
      replace: [["return year % 4 == 0", "return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)"]],
    },
    { file: "calendar_utils/days.py", replace: [["return MONTH_DAYS[month]", "return MONTH_DAYS[month - 1]"]] },
  ],
  "temperature-convert": [
    { file: "units/parse.py", replace: [["(-?\\d+)\\s*°?", "(-?\\d+(?:\\.\\d+)?)\\s*°?"]] },
    { file: "units/convert.py", replace: [["return value - 32 * 5 / 9", "return (value - 32) * 5 / 9"]] },
  ],
  "cart-coupons": [
    {
      file: "shop/discount.py",
      replace: [
        ["return COUPONS.get(code, 0)", "return COUPONS.get(code.strip().upper(), 0)"],
        ["return amount_cents * percent // 100", "return amount_cents * (100 - percent) // 100"],
      ],
    },
    { file: "shop/cart.py", replace: [["self.coupon = code", "self.coupon = code.strip().upper()"]] },
  ],
  "slugify-accents": [
    { file: "slugkit/normalize.py", replace: [['unicodedata.normalize("NFC", text)', 'unicodedata.normalize("NFKD", text)']] },
    {
      file: "slugkit/slugify.py",
      replace: [['return re.sub(r"[^a-z0-9]", sep, text)', 'return re.sub(r"[^a-z0-9]+", sep, text).strip(sep)']],
    },
  ],
  "rpn-calculator": [
    {
      file: "rpn/tokenizer.py",
      replace: [
        [
          "    tokens: list[str] = []\n    for ch in expr:\n        if ch.isspace():\n            continue\n        tokens.append(ch)\n    return tokens\n",
          "    return expr.split()\n",
        ],
      ],
    },
    {
      file: "rpn/evaluator.py",
      replace: [
        ["            a = stack.pop()\n            b = stack.pop()\n", "            b = stack.pop()\n            a = stack.pop()\n"],
      ],
    },
  ],
};

const tasksDir = path.resolve(import.meta.dirname, "..", "..", "environments", "code-repo-bugfix", "tasks");

function patchFor(id: string, fixes: Fix[]): string {
  const work = mkdtempSync(path.join(tmpdir(), "rlenv-bugfix-"));
  try {
    let patch = "";
    for (const fix of fixes) {
      const before = readFileSync(path.join(tasksDir, id, "files", fix.file), "utf8");
      let after = before;
      for (const [from, to] of fix.replace) {
        const n = after.split(from).length - 1;
        if (n !== 1) throw new Error(`${id}/${fix.file}: the text to replace occurs ${n} times, expected once: ${JSON.stringify(from)}`);
        after = after.replace(from, () => to);
      }
      const a = path.join(work, "a");
      const b = path.join(work, "b");
      mkdirSync(a, { recursive: true });
      mkdirSync(b, { recursive: true });
      writeFileSync(path.join(a, "f"), before);
      writeFileSync(path.join(b, "f"), after);
      try {
        execFileSync("diff", ["-u", "--label", `a/${fix.file}`, "--label", `b/${fix.file}`, path.join(a, "f"), path.join(b, "f")], {
          encoding: "utf8",
        });
        throw new Error(`${id}/${fix.file}: the fix changes nothing`);
      } catch (e) {
        // diff exits 1 when the files differ, with the diff on stdout.
        const out = (e as { status?: number; stdout?: string }).stdout;
        if ((e as { status?: number }).status !== 1 || !out) throw e;
        patch += out;
      }
    }
    return patch;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const check = process.argv.includes("--check");
let stale = 0;
for (const [id, fixes] of Object.entries(FIXES)) {
  const file = path.join(tasksDir, id, "task.yaml");
  const text = readFileSync(file, "utf8");
  const doc = parseDocument(text);
  doc.setIn(["solution", "patch"], patchFor(id, fixes));
  doc.setIn(
    ["metadata", "bug_files"],
    fixes.map((f) => f.file),
  );
  const next = doc.toString({ lineWidth: 0, blockQuote: "literal" });
  if (check) {
    if (next !== text) {
      stale++;
      console.log(`${path.relative(process.cwd(), file)}: solution.patch is stale; run scripts/envs/build-code-repo-bugfix.ts`);
    }
    continue;
  }
  writeFileSync(file, next);
  console.log(`${id}: patch over ${fixes.map((f) => f.file).join(", ")}`);
}
if (stale > 0) process.exit(1);
