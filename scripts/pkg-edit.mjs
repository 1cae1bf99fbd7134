// Edit package.json safely while several people (and npm installs) touch it:
//   flock /tmp/rlenv-npm.lock node scripts/pkg-edit.mjs 'pkg.contributes.commands.push({command: "x", title: "X"})'
// The argument is a JS statement run with `pkg` bound to the parsed package.json.
import { readFileSync, writeFileSync } from "node:fs";
const file = new URL("../package.json", import.meta.url);
const pkg = JSON.parse(readFileSync(file, "utf8"));
new Function("pkg", process.argv[2] ?? "")(pkg);
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
