import { it } from "vitest";
import { call, openSession, project, TSCONFIG } from "./support.js";
const TS_LSP = { typescript: { command: ["typescript-language-server", "--stdio"], extensions: [".ts", ".tsx"], rootPatterns: ["tsconfig.json"], waitMs: 8_000 } };
it("timing", async () => {
  const cwd = project({ "tsconfig.json": TSCONFIG, "src/main.ts": "export const four: number = 2 * 2;\n" });
  const session = await openSession(cwd, { lsp: TS_LSP });
  await call(session, "Read", { file_path: "src/main.ts" });
  for (const [a, b] of [["2 * 2", '"x"'], ['"x"', "2 * 3"], ["2 * 3", "2 * 4"], ["2 * 4", "2 * 5"]]) {
    const t = Date.now();
    const r = await call(session, "Edit", { file_path: "src/main.ts", old_string: a, new_string: b });
    console.log(Date.now() - t, JSON.stringify(r.text.slice(-200)));
  }
  const t = Date.now();
  console.log((await call(session, "Diagnostics", { file_path: "src/main.ts" })).text, Date.now() - t);
  console.log((await call(session, "Diagnostics", {})).text);
  await session.close();
}, 200_000);
