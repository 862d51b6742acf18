import { execFileSync } from "node:child_process";
import { writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { benchWorkspace } from "./support/repository.js";
const where = process.argv[2]!;
const dir = benchWorkspace(1000, true, { nodeModules: 1500 });
if (where === "exclude") {
  writeFileSync(join(dir, ".gitignore"), ".flow/\n");
  appendFileSync(join(dir, ".git/info/exclude"), "node_modules/\n");
  execFileSync("git", ["-C", dir, "add", "-A"]);
  execFileSync("git", ["-C", dir, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"]);
}
console.log(dir, execFileSync("git", ["-C", dir, "status", "--porcelain"]).toString().trim());
