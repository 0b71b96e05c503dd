import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DOCTOR_CHECKS, runDoctorChecks, type DoctorCheck } from "../../src/cli/doctor.js";
import { loadMcpConfig } from "../../src/mcp/index.js";
import { createSession } from "../../src/session/index.js";
import { sandboxAvailable } from "../cliCommand.js";
import { tempDir } from "../helpers.js";
import { EVERYTHING_SERVER } from "../mcp/helpers.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cliEntry = path.join(repoRoot, "src/cli/main.ts");

// A key is set: a clean setup has one (the check without it is its own test).
function toolgate(args: string[], home: string, env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: "test-key" }) {
  const result = spawnSync(process.execPath, ["--import", "tsx", cliEntry, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, TOOLGATE_PROVIDER: "", ANTHROPIC_BASE_URL: "", OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env, TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "managed.json") },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const writeJson = (file: string, value: unknown) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};

interface Report {
  status: string;
  checks: Array<{ name: string; status: string; lines: string[] }>;
}

/** A project with one of everything doctor looks at, some of it wrong. */
function messyProject() {
  const cwd = tempDir("tg-doctor-cwd-");
  const home = tempDir("tg-doctor-home-");
  writeJson(path.join(home, "settings.json"), { permissions: { allow: ["Bash(npm test)"] } });
  writeJson(path.join(cwd, ".toolgate/settings.json"), {
    permissions: { deny: ["bash(rm:*)", "Read(.env)", "mcp__github__delete_repo"], additionalDirectories: ["../nowhere"] },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "node guard.js" }, { type: "command", command: "" }] }] },
  });
  writeJson(path.join(cwd, ".toolgate/settings.local.json"), '{"permissions": {"deny": ["Edit"],}}');
  writeJson(path.join(cwd, ".mcp.json"), { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } } });
  return { cwd, home };
}

describe("toolgate doctor", () => {
  it("reports each section with a status and exits 1 when one is an error", () => {
    const { cwd, home } = messyProject();
    const run = toolgate(["doctor", "--cwd", cwd, "--json", "--trust"], home);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.status).toBe("error");
    expect(report.checks.map((c) => [c.name, c.status])).toEqual([
      ["settings files", "error"],
      ["folder trust", "ok"],
      ["permissions", "warn"],
      ["rule tool names", "warn"],
      // The empty command was already dropped (and reported) by the settings check.
      ["hooks", "ok"],
      ["plugins", "ok"],
      ["MCP servers", "ok"],
      // a real run in the sandbox where it can run; where it cannot, a warning saying what to install
      ["sandbox", sandboxAvailable ? "ok" : "warn"],
      ["model provider", "ok"],
      ["language servers", "ok"],
      ["web search", "ok"],
    ]);
    const [settings, trust, permissions, names, hooks, plugins, mcp] = report.checks;
    expect(plugins.lines).toEqual(["no plugins (toolgate plugin list shows the installed ones)"]);
    expect(trust.lines).toEqual([`${cwd} is trusted (--trust, for this run): its settings, hooks, MCP servers and language servers apply`]);
    expect(settings.lines).toEqual([
      `user settings: ${path.join(home, "settings.json")} — ok`,
      `project settings: ${path.join(cwd, ".toolgate/settings.json")} — ok, 1 entry dropped:`,
      "    hooks.PreToolUse[0].hooks[1].command: must not be empty (entry ignored)",
      `local project settings: ${path.join(cwd, ".toolgate/settings.local.json")} — invalid JSON at line 1, column 35: unexpected "}" (Expected double-quoted property name) (exec and mcp serve refuse to run until it is fixed)`,
      `managed settings: ${path.join(home, "managed.json")} — not present`,
    ]);
    expect(permissions.lines).toContain(`  ! ${path.resolve(cwd, "../nowhere")} is not an existing directory`);
    expect(permissions.lines).toContain(`  deny   Read(.env)                project settings — ${path.join(cwd, ".toolgate/settings.json")}`);
    expect(permissions.lines).toContain(`  allow  Bash(npm test)            user settings — ${path.join(home, "settings.json")}`);
    expect(names.lines).toEqual([
      `deny rule "bash(rm:*)" from project settings (${path.join(cwd, ".toolgate/settings.json")}) names no tool "bash"; did you mean Bash? The rule never matches.`,
      `deny rule "mcp__github__delete_repo" from project settings (${path.join(cwd, ".toolgate/settings.json")}): no MCP server named github is configured, so it matches nothing for now.`,
    ]);
    expect(hooks.lines).toEqual([`PreToolUse [Bash] node guard.js — ${path.join(cwd, ".toolgate/settings.json")}`]);
    expect(mcp.lines).toEqual([`everything (stdio: ${process.execPath} ${EVERYTHING_SERVER} stdio) — ${path.join(cwd, ".mcp.json")}; not started (--connect starts them)`]);
  });

  it("prints a readable report; a clean setup passes with exit 0", () => {
    const { cwd, home } = messyProject();
    const text = toolgate(["doctor", "--cwd", cwd, "--trust"], home);
    expect(text.stdout.startsWith(`toolgate doctor — ${cwd}\n\n[error] settings files\n  user settings: `)).toBe(true);
    // where the sandbox cannot run, its section is one warning more (and a clean setup is not clean)
    expect(text.stdout.trimEnd().endsWith(sandboxAvailable ? "1 error, 2 warnings" : "1 error, 3 warnings")).toBe(true);

    const clean = tempDir("tg-doctor-clean-");
    const ok = toolgate(["doctor", "--cwd", clean], tempDir("tg-doctor-home-"));
    expect(ok.status).toBe(0);
    expect(ok.stdout.trimEnd().endsWith(sandboxAvailable ? "all checks passed" : "1 warning")).toBe(true);
    expect(ok.stdout).toContain("[ok] rule tool names\n  every rule names a known tool");
  });

  it("no API key is a warning that names the variable to set", () => {
    const run = toolgate(["doctor", "--cwd", tempDir("tg-doctor-clean-"), "--json"], tempDir("tg-doctor-home-"), { ANTHROPIC_API_KEY: "" });
    expect(run.status).toBe(0);
    const provider = (JSON.parse(run.stdout) as Report).checks.find((c) => c.name === "model provider")!;
    expect(provider.status).toBe("warn");
    expect(provider.lines).toContain("API key: not set — set ANTHROPIC_API_KEY for -p and the interactive UI");
  });

  it("rules naming tools a session adds only when configured (Diagnostics without language servers) are not typos", () => {
    const cwd = tempDir("tg-doctor-cwd-");
    writeJson(path.join(cwd, ".toolgate/settings.json"), {
      permissions: { deny: ["Diagnostics", "Task(reviewer)", "KillShell"], allow: ["str_replace_based_edit_tool", "apply_patch", "Skill(deploy)"], strict: true },
    });
    const result = toolgate(["doctor", "--cwd", cwd, "--json"], tempDir("tg-doctor-home-"));
    const names = (JSON.parse(result.stdout) as Report).checks.find((c) => c.name === "rule tool names")!;
    expect(names).toMatchObject({ status: "ok", lines: ["every rule names a known tool"] });
  });

  it("strict mode turns a deny rule naming no tool into an error", () => {
    const cwd = tempDir("tg-doctor-cwd-");
    writeJson(path.join(cwd, ".toolgate/settings.json"), { permissions: { deny: ["Reed(./.env)"], strict: true } });
    const report = JSON.parse(toolgate(["doctor", "--cwd", cwd, "--json"], tempDir("tg-doctor-home-")).stdout) as Report;
    const names = report.checks.find((c) => c.name === "rule tool names")!;
    expect(names.status).toBe("error");
    expect(names.lines[0]).toMatch(/^strict mode: deny rule "Reed\(\.\/\.env\)" .*did you mean Read\?/);
  });

  it("--connect starts each MCP server to check it", () => {
    const cwd = tempDir("tg-doctor-cwd-");
    writeJson(path.join(cwd, ".mcp.json"), {
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] },
        broken: { command: "toolgate-no-such-command-xyz" },
      },
    });
    const run = toolgate(["doctor", "--cwd", cwd, "--connect", "--json", "--trust"], tempDir("tg-doctor-home-"));
    expect(run.status).toBe(1);
    const mcp = (JSON.parse(run.stdout) as Report).checks.find((c) => c.name === "MCP servers")!;
    expect(mcp.status).toBe("error");
    expect(mcp.lines[0]).toMatch(/^everything \(stdio: .*\) — .*\.mcp\.json; connected, \d+ tools$/);
    expect(mcp.lines[1]).toMatch(/^broken \(stdio: toolgate-no-such-command-xyz\) — .*; failed: could not connect: command not found: toolgate-no-such-command-xyz$/);
  });

  it("is a list of named checks: one more is one more entry, and a check that throws is an error section, not a crash", async () => {
    const cwd = tempDir("tg-doctor-cwd-");
    const home = tempDir("tg-doctor-home-");
    const session = await createSession({ cwd, home, env: { TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") } });
    const sandbox: DoctorCheck = { name: "sandbox", run: () => ({ status: "warn", lines: ["bubblewrap: /usr/bin/bwrap"] }) };
    const broken: DoctorCheck = {
      name: "broken",
      run: () => {
        throw new Error("probe exploded");
      },
    };
    try {
      const report = await runDoctorChecks([...DOCTOR_CHECKS, sandbox, broken], {
        options: { cwd, home },
        session,
        mcpConfig: loadMcpConfig({ projectDir: cwd, env: {} }),
        connect: false,
        env: { TOOLGATE_HOME: home, TOOLGATE_MANAGED_SETTINGS: path.join(home, "none.json") },
      });
      expect(report.checks.slice(-2)).toEqual([
        { name: "sandbox", status: "warn", lines: ["bubblewrap: /usr/bin/bwrap"] },
        { name: "broken", status: "error", lines: ["the check itself failed: probe exploded"] },
      ]);
      expect(report.status).toBe("error");
    } finally {
      await session.close();
    }
  });
});

describe("toolgate permissions list", () => {
  it("lists every rule with behavior, source and file, the mode with its source, and the working directories", () => {
    const cwd = tempDir("tg-list-cwd-");
    const home = tempDir("tg-list-home-");
    fs.mkdirSync(path.join(cwd, "lib"));
    const project = path.join(cwd, ".toolgate/settings.json");
    writeJson(project, { permissions: { deny: ["Read(.env)"], allow: ["Bash(npm test)"], defaultMode: "acceptEdits", additionalDirectories: ["lib"] } });
    writeJson(path.join(home, "settings.json"), { permissions: { ask: ["Bash(git push:*)"] } });

    const run = toolgate(["permissions", "list", "--cwd", cwd, "--disallowedTools", "Bash(curl:*)", "--trust"], home);

    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      [
        `mode: acceptEdits (project settings — ${project})`,
        "working directories:",
        `  ${cwd} (cwd)`,
        `  ${path.join(cwd, "lib")} (project settings — ${project})`,
        "rules:",
        `  deny   Bash(curl:*)      command line`,
        `  deny   Read(.env)        project settings — ${project}`,
        `  ask    Bash(git push:*)  user settings — ${path.join(home, "settings.json")}`,
        `  allow  Bash(npm test)    project settings — ${project}`,
        "",
      ].join("\n"),
    );
    const json = JSON.parse(toolgate(["permissions", "list", "--cwd", cwd, "--permission-mode", "plan", "--json"], home).stdout);
    expect(json).toMatchObject({ mode: "plan", modeSource: "--permission-mode", strict: false });
    expect(json.rules[0]).toEqual({ behavior: "deny", rule: "Read(.env)", source: "projectSettings", file: project });
  });
});
