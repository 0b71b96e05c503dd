// npm's `prepare`: build dist/ after `npm ci` / `npm install`, so the CLI works at once.
// `npx toolgate` in a clone installs the clone into npx's cache (npm does that for a package's own bin) and
// runs `prepare` there too: a whole rebuild before the first run (10 s idle, minutes on a busy machine) for a
// dist/ that is already built. The build then is skipped; `npm run build` rebuilds on purpose.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const built = existsSync(new URL("../dist/cli/main.js", import.meta.url));
if (!(process.env.npm_command === "exec" && built)) {
  const npm = process.env.npm_execpath;
  const run = npm ? spawnSync(process.execPath, [npm, "run", "build"], { stdio: "inherit" }) : spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
}
