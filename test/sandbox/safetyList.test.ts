/**
 * One list of safety paths for the file tools and the sandbox (issue 26): a folder the sandbox keeps
 * read-only is also one the file tools confirm, and a repository's whole `.git` is read-only in the sandbox.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES } from "../../src/permissions/safetyPaths.js";
import { protectedPathReason } from "../../src/permissions/fileChecks.js";
import { filesystemPolicy } from "../../src/sandbox/policy.js";
import { checkSandboxSupport } from "../../src/sandbox/index.js";
import { createSession, type Session } from "../../src/session/index.js";
import { runToolUse } from "../../src/core/pipeline/index.js";
import { assistantMessage, tempDir } from "../helpers.js";

const sessions: Session[] = [];
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

async function open(mode: "acceptEdits" | "bypassPermissions", sandbox: boolean) {
  const cwd = tempDir("tg-safety-");
  const home = tempDir("tg-safety-home-");
  const session = await createSession({ cwd, home, permissionMode: mode, sandbox, env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") } });
  sessions.push(session);
  return { cwd, session };
}

async function call(session: Session, name: string, input: Record<string, unknown>) {
  for await (const u of runToolUse({ type: "tool_use", id: `t${Math.random()}`, name, input }, assistantMessage(), session.canUseTool, session.context)) {
    if (u.type === "result") return { isError: u.block.is_error === true, text: JSON.stringify(u.block.content) };
  }
  throw new Error("no result");
}

describe("one list of safety paths", () => {
  it("every safety folder and file is confirmed by the file tools and read-only in the sandbox policy", async () => {
    const { cwd, session } = await open("acceptEdits", false);
    fs.mkdirSync(path.join(cwd, ".git"));
    const policy = filesystemPolicy({ permissionContext: session.context.getAppState().toolPermissionContext, scope: "workingDirectories", tempDir: tempDir("tg-safety-tmp-") });
    for (const name of [...SAFETY_DIRECTORY_NAMES, ...SAFETY_FILE_NAMES]) {
      const inside = SAFETY_DIRECTORY_NAMES.includes(name) ? path.join(cwd, name, "x.json") : path.join(cwd, name);
      expect(protectedPathReason(inside), name).toBeDefined();
      expect(policy.denyWrite, name).toContain(path.join(cwd, name));
    }
  });

  it.each([".claude/settings.json", ".idea/workspace.xml", ".vscode/settings.json", ".CLAUDE/settings.json"])("Write to %s asks even in acceptEdits (denied without someone to ask)", async (file) => {
    const { cwd, session } = await open("acceptEdits", false);
    const result = await call(session, "Write", { file_path: path.join(cwd, file), content: '{"hooks":{}}' });
    expect(result.isError).toBe(true);
    expect(fs.existsSync(path.join(cwd, file))).toBe(false);
  });
});

const support = checkSandboxSupport();
describe.skipIf(!support.available)("a repository's .git stays read-only in the sandbox", () => {
  it("a sandboxed command cannot plant commondir, info/attributes, alternates, worktrees, config.worktree or modules; git still reads", async () => {
    const { cwd, session } = await open("bypassPermissions", true);
    // the repository exists before the session, as a cloned one does
    execFileSync("git", ["init", "-q"], { cwd });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "one"], { cwd });
    const attempts = [
      "echo /tmp/evil > .git/commondir",
      "echo '* filter=evil' > .git/info/attributes",
      "echo /tmp/objects > .git/objects/info/alternates",
      "mkdir -p .git/worktrees/w && echo x > .git/worktrees/w/commondir",
      "echo '[core]' > .git/config.worktree",
      "mkdir -p .git/modules/m && echo '[core]' > .git/modules/m/config",
      "git config core.fsmonitor 'touch /tmp/pwned'",
      "mv .git/info .git/info2 && mkdir .git/info && echo x > .git/info/attributes",
      "ln -s ../../evil .git/commondir",
    ];
    for (const command of attempts) await call(session, "Bash", { command });
    for (const entry of ["commondir", "info/attributes", "objects/info/alternates", "worktrees", "config.worktree", "modules", "info2"]) {
      expect(fs.existsSync(path.join(cwd, ".git", entry)), entry).toBe(false);
    }
    expect(fs.readFileSync(path.join(cwd, ".git/config"), "utf8")).not.toContain("fsmonitor");
    // reading works; a commit needs a command run outside the sandbox (excludedCommands, or approve it unsandboxed)
    const log = await call(session, "Bash", { command: "git --no-optional-locks rev-list --count HEAD" });
    expect(log.isError, log.text).toBe(false);
    expect(log.text).toContain("1");
    const commit = await call(session, "Bash", { command: "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m two" });
    expect(commit.isError).toBe(true);
  });
});

describe.skipIf(!support.available)("sandbox read-deny paths cover every spelling on disk", () => {
  it("a rule for secrets/** or café/** also hides Secrets/, SECRETS/ and an NFD café/ from sandboxed Bash", async () => {
    const cwd = tempDir("tg-spell-");
    const home = tempDir("tg-spell-home-");
    const nfd = "cafe\u0301";
    for (const dir of ["Secrets", "SECRETS", nfd, "Keys/Deep"]) {
      fs.mkdirSync(path.join(cwd, dir), { recursive: true });
      fs.writeFileSync(path.join(cwd, dir, "token.txt"), `hunter2-${dir.length}\n`);
    }
    const settings = path.join(home, "extra.json");
    fs.writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Read(./secrets/**)", "Read(./caf\u00e9/**)", "Read(./keys/deep/token.txt)"] } }));
    const session = await createSession({ cwd, home, settingsFile: settings, sandbox: true, env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") } });
    sessions.push(session);
    for (const command of ["cat Secrets/token.txt", "cat SECRETS/token.txt", `cat ${nfd}/token.txt`, "cat Keys/Deep/token.txt", "grep -r hunter2 .", "find . -name token.txt -exec cat {} +"]) {
      const result = await call(session, "Bash", { command });
      expect(result.text, command).not.toContain("hunter2");
    }
  });
});
