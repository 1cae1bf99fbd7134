/**
 * Builds environments/code-stdio: programs judged on stdin/stdout cases.
 *
 *   npx tsx scripts/envs/build-code-stdio.ts [--out DIR]
 *
 * Each task carries two independent references: a Python program (the oracle the
 * environment ships) and a TypeScript function here that computes the expected output
 * of every case. `rlenv validate --run` then checks one against the other, so a slip in
 * either shows up as an oracle below 1.0.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";

interface StdioTask {
  id: string;
  prompt: string;
  solution: string;
  solve: (stdin: string) => string;
  /**
   * The first two are shown to the agent as examples; the rest are the hidden cases. The
   * examples are not graded: a program that only prints their expected outputs from a table
   * would otherwise earn their share of the reward (rlenv audit's hardcode-visible probe).
   */
  inputs: string[];
}

const lines = (s: string) => s.replace(/\n$/, "").split("\n");
const ints = (s: string) => s.trim().split(/\s+/).filter(Boolean).map(Number);
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

const TASKS: StdioTask[] = [
  {
    id: "sum-numbers",
    prompt: "The first line holds n; the next n lines hold one integer each (possibly negative, up to 10^18 in size). Print their sum.",
    solution: "import sys\n\ndata = sys.stdin.read().split()\nn = int(data[0])\nprint(sum(int(x) for x in data[1 : 1 + n]))\n",
    solve: (s) => {
      const t = s.trim().split(/\s+/);
      const n = Number(t[0]);
      return `${t.slice(1, 1 + n).reduce((a, x) => a + BigInt(x), 0n)}\n`;
    },
    inputs: [
      "3\n1\n2\n3\n",
      "1\n-7\n",
      "0\n",
      "4\n1000000000000000000\n1000000000000000000\n-5\n5\n",
      "5\n10\n-20\n30\n-40\n50\n",
      "2\n-1000000000000000000\n999999999999999999\n",
    ],
  },
  {
    id: "reverse-words",
    prompt: "For every line of input, print the words of that line in reverse order, separated by single spaces.",
    solution: "import sys\n\nfor line in sys.stdin.read().splitlines():\n    print(' '.join(reversed(line.split())))\n",
    solve: (s) =>
      lines(s)
        .map((l) => l.split(/\s+/).filter(Boolean).reverse().join(" "))
        .join("\n") + "\n",
    inputs: [
      "hello world\n",
      "the quick brown fox\njumps over\n",
      "single\n",
      "a b c d e f g\n  spaced   out  words \n",
      "one two\nthree\nfour five six\n",
      "x  y\n",
    ],
  },
  {
    id: "fizzbuzz",
    prompt:
      "Read n and print the numbers 1 to n, one a line, but Fizz for multiples of 3, Buzz for multiples of 5 and FizzBuzz for multiples of both.",
    solution:
      "n = int(input())\nfor i in range(1, n + 1):\n    if i % 15 == 0:\n        print('FizzBuzz')\n    elif i % 3 == 0:\n        print('Fizz')\n    elif i % 5 == 0:\n        print('Buzz')\n    else:\n        print(i)\n",
    solve: (s) => {
      const n = Number(s.trim());
      const out: string[] = [];
      for (let i = 1; i <= n; i++) out.push(i % 15 === 0 ? "FizzBuzz" : i % 3 === 0 ? "Fizz" : i % 5 === 0 ? "Buzz" : String(i));
      return `${out.join("\n")}\n`;
    },
    inputs: ["5\n", "15\n", "1\n", "31\n", "3\n", "20\n"],
  },
  {
    id: "count-vowels",
    prompt: "Read one line of text and print how many vowels (a, e, i, o, u, in either case) it contains.",
    solution: "line = input()\nprint(sum(1 for c in line.lower() if c in 'aeiou'))\n",
    solve: (s) => `${[...(lines(s)[0] ?? "").toLowerCase()].filter((c) => "aeiou".includes(c)).length}\n`,
    inputs: ["Hello World\n", "rhythm\n", "AEIOU aeiou\n", "Programming in Python is fun!\n", "xyz 123 OoO\n", "Queueing is unusual\n"],
  },
  {
    id: "fibonacci",
    prompt: "Read n (0 <= n <= 90) and print the n-th Fibonacci number, where F(0) = 0 and F(1) = 1.",
    solution: "n = int(input())\na, b = 0, 1\nfor _ in range(n):\n    a, b = b, a + b\nprint(a)\n",
    solve: (s) => {
      let [a, b] = [0n, 1n];
      for (let i = 0; i < Number(s.trim()); i++) [a, b] = [b, a + b];
      return `${a}\n`;
    },
    inputs: ["10\n", "1\n", "0\n", "50\n", "90\n", "2\n", "37\n"],
  },
  {
    id: "primes-up-to",
    prompt: "Read n (2 <= n <= 100000) and print every prime number <= n on one line, separated by spaces.",
    solution:
      "n = int(input())\nsieve = bytearray([1]) * (n + 1)\nsieve[0:2] = b'\\x00\\x00'\nfor i in range(2, int(n ** 0.5) + 1):\n    if sieve[i]:\n        sieve[i * i :: i] = bytearray(len(range(i * i, n + 1, i)))\nprint(' '.join(str(i) for i in range(n + 1) if sieve[i]))\n",
    solve: (s) => {
      const n = Number(s.trim());
      const out: number[] = [];
      for (let i = 2; i <= n; i++) {
        let prime = true;
        for (let d = 2; d * d <= i; d++) if (i % d === 0) prime = false;
        if (prime) out.push(i);
      }
      return `${out.join(" ")}\n`;
    },
    inputs: ["10\n", "2\n", "30\n", "97\n", "1000\n", "3\n"],
  },
  {
    id: "transpose",
    prompt:
      "The first line holds r and c; then r lines of c integers each. Print the transposed matrix: c lines of r integers separated by spaces.",
    solution:
      "import sys\n\nr, c = map(int, sys.stdin.readline().split())\nrows = [sys.stdin.readline().split() for _ in range(r)]\nfor j in range(c):\n    print(' '.join(rows[i][j] for i in range(r)))\n",
    solve: (s) => {
      const [head, ...rest] = lines(s);
      const [r, c] = ints(head ?? "") as [number, number];
      const rows = rest.slice(0, r).map((l) => l.trim().split(/\s+/));
      const out: string[] = [];
      for (let j = 0; j < c; j++) out.push(rows.map((row) => row[j]).join(" "));
      return `${out.join("\n")}\n`;
    },
    inputs: ["2 3\n1 2 3\n4 5 6\n", "1 1\n7\n", "3 1\n1\n2\n3\n", "3 3\n1 2 3\n4 5 6\n7 8 9\n", "2 2\n-1 0\n5 -9\n", "1 4\n4 3 2 1\n"],
  },
  {
    id: "word-frequency",
    prompt:
      "Read all of the input. Words are runs of letters a-z (lowercase everything first; anything else separates words). Print each distinct word and its count, one pair a line as 'word count', most frequent first, ties in alphabetical order.",
    solution:
      "import re\nimport sys\nfrom collections import Counter\n\ncounts = Counter(re.findall(r'[a-z]+', sys.stdin.read().lower()))\nfor word, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):\n    print(word, n)\n",
    solve: (s) => {
      const counts = new Map<string, number>();
      for (const w of s.toLowerCase().match(/[a-z]+/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
      const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return `${sorted.map(([w, n]) => `${w} ${n}`).join("\n")}\n`;
    },
    inputs: [
      "the cat and the hat\n",
      "Go, go, GO! Stop.\n",
      "one\n",
      "b a c b a b\nc-c a\n",
      "It is what it is.\n",
      "apple Banana apple banana cherry\n",
    ],
  },
  {
    id: "balanced-brackets",
    prompt:
      "For every line of input, print YES if its brackets (), [] and {} are balanced and properly nested, otherwise NO. Other characters are ignored.",
    solution:
      "import sys\n\npairs = {')': '(', ']': '[', '}': '{'}\nfor line in sys.stdin.read().splitlines():\n    stack = []\n    ok = True\n    for ch in line:\n        if ch in '([{':\n            stack.append(ch)\n        elif ch in pairs:\n            if not stack or stack.pop() != pairs[ch]:\n                ok = False\n                break\n    print('YES' if ok and not stack else 'NO')\n",
    solve: (s) =>
      lines(s)
        .map((l) => {
          const stack: string[] = [];
          const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
          for (const ch of l) {
            if ("([{".includes(ch)) stack.push(ch);
            else if (pairs[ch] && stack.pop() !== pairs[ch]) return "NO";
          }
          return stack.length === 0 ? "YES" : "NO";
        })
        .join("\n") + "\n",
    inputs: ["([]{})\n", "(]\n", "((a+b)*[c-d])\n{[}]\n", "\n)(\n", "{{{{}}}}\n[(])\n", "[{()}]()\n"],
  },
  {
    id: "gcd-lcm",
    prompt:
      "Each line holds two positive integers a and b (up to 10^12). For each line print 'g l' where g is their greatest common divisor and l their least common multiple.",
    solution:
      "import math\nimport sys\n\nfor line in sys.stdin.read().splitlines():\n    if line.strip():\n        a, b = map(int, line.split())\n        g = math.gcd(a, b)\n        print(g, a // g * b)\n",
    solve: (s) =>
      lines(s)
        .filter((l) => l.trim())
        .map((l) => {
          const [a, b] = l.trim().split(/\s+/).map(BigInt) as [bigint, bigint];
          const g = gcd(a, b);
          return `${g} ${(a / g) * b}`;
        })
        .join("\n") + "\n",
    inputs: ["12 18\n", "7 13\n1 1\n", "100 10\n", "1000000000000 999999999999\n", "48 180\n17 17\n", "1 999999999989\n"],
  },
  {
    id: "run-length",
    prompt:
      "Read one line and print its run-length encoding: each run of the same character as the character followed by the run's length, e.g. aaabcc -> a3b1c2.",
    solution: "from itertools import groupby\n\nline = input()\nprint(''.join(f'{ch}{len(list(g))}' for ch, g in groupby(line)))\n",
    solve: (s) => `${(lines(s)[0] ?? "").replace(/(.)\1*/g, (m, ch: string) => `${ch}${m.length}`)}\n`,
    inputs: ["aaabcc\n", "abc\n", "zzzzzzzzzzzz\n", "aabbaa\n", "xyyzzz11\n", "a\n"],
  },
  {
    id: "anagram-groups",
    prompt:
      "Read words separated by whitespace. Group words that are anagrams of each other. Print one group a line: its words sorted alphabetically and separated by spaces; order the lines by their first word. Each word appears once in the input.",
    solution:
      "import sys\nfrom collections import defaultdict\n\ngroups = defaultdict(list)\nfor w in sys.stdin.read().split():\n    groups[''.join(sorted(w))].append(w)\nfor g in sorted(sorted(v) for v in groups.values()):\n    print(' '.join(g))\n",
    solve: (s) => {
      const groups = new Map<string, string[]>();
      for (const w of s.split(/\s+/).filter(Boolean)) {
        const k = [...w].sort().join("");
        groups.set(k, [...(groups.get(k) ?? []), w]);
      }
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const rows = [...groups.values()].map((g) => g.sort(cmp)).sort((a, b) => cmp(a.join("\u0000"), b.join("\u0000")));
      return `${rows.map((g) => g.join(" ")).join("\n")}\n`;
    },
    inputs: [
      "listen silent enlist google\n",
      "abc\n",
      "rat tar art star tars cheese\n",
      "dusty study night thing\n",
      "dog god odg cat act\n",
      "evil vile live veil vale\n",
    ],
  },
  {
    id: "caesar-shift",
    prompt:
      "The first line holds a shift k (0 <= k < 26); the second a line of text. Print the text with every letter shifted k places forward in the alphabet, wrapping around and keeping its case; other characters stay as they are.",
    solution:
      "k = int(input())\ntext = input()\nout = []\nfor ch in text:\n    if 'a' <= ch <= 'z':\n        out.append(chr((ord(ch) - 97 + k) % 26 + 97))\n    elif 'A' <= ch <= 'Z':\n        out.append(chr((ord(ch) - 65 + k) % 26 + 65))\n    else:\n        out.append(ch)\nprint(''.join(out))\n",
    solve: (s) => {
      const [kl, text = ""] = lines(s);
      const k = Number(kl);
      const shift = (ch: string, base: number) => String.fromCharCode(((ch.charCodeAt(0) - base + k) % 26) + base);
      return `${[...text].map((ch) => (/[a-z]/.test(ch) ? shift(ch, 97) : /[A-Z]/.test(ch) ? shift(ch, 65) : ch)).join("")}\n`;
    },
    inputs: [
      "3\nabc xyz\n",
      "0\nHello, World!\n",
      "13\nWhy did the chicken cross the road?\n",
      "25\nBCD\n",
      "1\nZz Aa\n",
      "7\nThe year 2026!\n",
    ],
  },
];

const root = path.resolve(import.meta.dirname, "..", "..");
const outAt = process.argv.indexOf("--out");
const outDir =
  outAt >= 0 && process.argv[outAt + 1] ? path.resolve(process.argv[outAt + 1]!) : path.join(root, "environments", "code-stdio");
const STUB = "# Read the input from standard input and print the answer to standard output.\n";

const manifest = `# Generated by scripts/envs/build-code-stdio.ts
name: code-stdio
domain: code
description: >-
  Small programs judged on stdin/stdout cases: the agent writes solution.py, each hidden
  case runs it with its own timeout and compares the output with whitespace normalised.
  The reward is the fraction of cases passed.
version: "1"
sandbox:
  image: rlenv/python:bookworm
  workdir: /workspace
  limits:
    cpus: 1
    memory: 512m
    pids: 64
  timeouts:
    step: 30
    rollout: 300
tasks: tasks
prompt:
  system: |
    You write Python 3 programs that read standard input and print to standard output.
    The workdir holds solution.py; run_tests runs it on the example cases. Submit when done.
  user: |
    {{task.prompt}}

    Write the program in solution.py.
tools: [bash, read_file, write_file, edit_file, list_files, run_tests, submit]
max_turns: 20
reward:
  - type: tests
    name: stdio-cases
    format: stdio
    program: python3 solution.py
    mode: fraction
    timeout: 120
`;

const readme = `# code-stdio

Small programs judged on stdin/stdout cases, generated by
\`scripts/envs/build-code-stdio.ts\`. The agent writes \`solution.py\`; each hidden case
runs \`python3 solution.py\` with the case's stdin under its own timeout, and the output
is compared with whitespace normalised per line. The reward is the fraction of cases
passed; each case's outcome, stdout and stderr are kept in the reward record. Two more
cases are visible as \`examples.json\` and \`run_tests\` judges them the same way; they are
not among the hidden cases, so answering them from a table earns nothing.
`;

rmSync(path.join(outDir, "tasks"), { recursive: true, force: true });
mkdirSync(path.join(outDir, "tasks"), { recursive: true });
writeFileSync(path.join(outDir, "environment.yaml"), manifest);
writeFileSync(path.join(outDir, "README.md"), readme);
for (const t of TASKS) {
  const cases = t.inputs.map((stdin) => ({ stdin, stdout: t.solve(stdin) }));
  for (const c of cases)
    if (c.stdout.trim() === "") throw new Error(`${t.id}: a case expects empty output, so the nop policy would pass it`);
  const task = {
    prompt: t.prompt,
    files: { "solution.py": STUB },
    visible_tests: { "examples.json": `${JSON.stringify(cases.slice(0, 2), null, 2)}\n` },
    tests: { cases: cases.slice(2).map((c) => ({ ...c, timeout: 5 })) },
    solution: { files: { "solution.py": t.solution } },
  };
  const dir = path.join(outDir, "tasks", t.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "task.yaml"), stringify(task, { lineWidth: 0, blockQuote: "literal" }));
}
console.log(`wrote ${TASKS.length} tasks to ${path.relative(process.cwd(), outDir)}`);
