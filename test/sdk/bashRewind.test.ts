/** The Agent SDK's rewindFiles (the rewind_files control request) undoes what a Bash command did. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { call, closeServers, project, promptStream, sdkOptions, serve, text } from "./helpers.js";

vi.setConfig({ testTimeout: 180_000 });
afterEach(closeServers);

describe("rewindFiles after Bash", () => {
  it("a dry run lists the files a command changed; the rewind restores the modified and deleted ones and deletes the created one", async () => {
    const dir = project({ "existing.txt": "one\ntwo\n", "other.txt": "delete me\n" });
    const real = fs.realpathSync(dir);
    const server = await serve({ turns: [call("toolu_b", "Bash", { command: "echo x > new.txt; sed -i s/two/TWO/ existing.txt; rm other.txt" }), text("done")] });
    const prompts = promptStream();
    const q = query({ prompt: prompts, options: sdkOptions(dir, server, { allowedTools: ["Bash"], enableFileCheckpointing: true }) });
    const uuid = "5a1d2c3b-4e5f-4a6b-9c7d-8e9fa0b1c2d3";
    prompts.push("change the files with bash", uuid);
    for await (const m of q) {
      if (m.type !== "result") continue;
      expect(fs.readFileSync(path.join(dir, "existing.txt"), "utf8")).toBe("one\nTWO\n");
      const dry = await q.rewindFiles(uuid, { dryRun: true });
      expect(dry.canRewind).toBe(true);
      expect([...(dry.filesChanged ?? [])].sort()).toEqual(["existing.txt", "new.txt", "other.txt"].map((f) => path.join(real, f)));
      const done = await q.rewindFiles(uuid);
      expect(done.canRewind).toBe(true);
      expect(fs.readFileSync(path.join(dir, "existing.txt"), "utf8")).toBe("one\ntwo\n");
      expect(fs.readFileSync(path.join(dir, "other.txt"), "utf8")).toBe("delete me\n");
      expect(fs.existsSync(path.join(dir, "new.txt"))).toBe(false);
      prompts.end();
    }
  });
});
