/** The pure parts of the sandbox policy: write scope from a decision, rule patterns as sandbox paths, hosts. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PermissionDecision, PermissionRule } from "../../src/core/permissionTypes.js";
import { createEmptyPermissionContext } from "../../src/core/context.js";
import { parsePermissionRule } from "../../src/permissions/index.js";
import { SANDBOX_AUTO_ALLOW_REASON, filesystemPolicy, matchesHostPattern, networkPolicy, writeScopeFor } from "../../src/sandbox/index.js";
import { ruleToSandboxPaths } from "../../src/sandbox/policy.js";

const rule = (behavior: "allow" | "deny" | "ask", text: string, root?: string): PermissionRule => ({
  source: "projectSettings",
  ruleBehavior: behavior,
  ruleValue: parsePermissionRule(text),
  ...(root && { root }),
});
const allowPart = (reason: "rule" | "other"): { command: string; result: PermissionDecision } => ({
  command: "x",
  result: reason === "rule" ? { behavior: "allow", decisionReason: { type: "rule", rule: rule("allow", "Bash(x:*)") } } : { behavior: "allow", decisionReason: { type: "other", reason: "read-only command" } },
});

describe("writeScopeFor", () => {
  it.each<[string, PermissionDecision | undefined, string, string]>([
    ["acceptEdits", { behavior: "allow", decisionReason: { type: "other", reason: SANDBOX_AUTO_ALLOW_REASON } }, "acceptEdits", "workingDirectories"],
    ["bypassPermissions", undefined, "bypassPermissions", "workingDirectories"],
    ["plan never writes", { behavior: "allow", decisionReason: { type: "rule", rule: rule("allow", "Bash") } }, "plan", "none"],
    ["sandbox auto-allow", { behavior: "allow", decisionReason: { type: "other", reason: SANDBOX_AUTO_ALLOW_REASON } }, "default", "none"],
    ["read-only judgement only", { behavior: "allow", decisionReason: { type: "subcommands", parts: [allowPart("other"), allowPart("other")] } }, "default", "none"],
    ["one part by rule", { behavior: "allow", decisionReason: { type: "subcommands", parts: [allowPart("other"), allowPart("rule")] } }, "default", "workingDirectories"],
    ["whole-tool rule", { behavior: "allow", decisionReason: { type: "rule", rule: rule("allow", "Bash") } }, "default", "workingDirectories"],
    ["user approval (no reason)", { behavior: "allow" }, "default", "workingDirectories"],
    ["hook approval", { behavior: "allow", decisionReason: { type: "hook", hookEvent: "PreToolUse" } }, "default", "workingDirectories"],
    ["no decision", undefined, "default", "none"],
    ["a deny never writes", { behavior: "deny", message: "no" }, "default", "none"],
  ])("%s", (_name, decision, mode, scope) => {
    expect(writeScopeFor(decision, mode as never)).toBe(scope);
  });
});

describe("ruleToSandboxPaths", () => {
  it.each<[string, string[]]>([
    ["Read(./.env)", ["/p/.env"]],
    ["Read(.env)", ["/p/.env", "/p/**/.env"]],
    ["Read(secrets/**)", ["/p/secrets"]],
    ["Read(src/secret.txt)", ["/p/src/secret.txt"]],
    ["Read(//etc/shadow)", ["/etc/shadow"]],
    ["Read(~/.ssh/**)", ["/home/u/.ssh"]],
    ["Read(/conf/*.key)", ["/root-of-settings/conf/*.key"]],
    ["Read(*.pem)", ["/p/*.pem", "/p/**/*.pem"]],
    ["Read(./)", ["/p"]],
  ])("%s", (text, expected) => {
    expect(ruleToSandboxPaths(rule("deny", text, "/root-of-settings"), "/p", "/home/u")).toEqual(expected);
  });
});

describe("network policy", () => {
  it("lists allowedDomains and WebFetch domain allow rules; deny rules are kept apart", () => {
    const ctx = { ...createEmptyPermissionContext("/p"), rules: [rule("allow", "WebFetch(domain:docs.example.com)"), rule("deny", "WebFetch(domain:evil.example.com)"), rule("allow", "WebFetch")] };
    expect(networkPolicy(ctx, { network: { allowedDomains: ["*.npmjs.org", " GitHub.com "] } })).toEqual({
      allowed: ["*.npmjs.org", "github.com", "docs.example.com"],
      denied: ["evil.example.com"],
    });
  });

  it.each<[string, string, boolean]>([
    ["example.com", "example.com", true],
    ["EXAMPLE.com.", "example.com", true],
    ["api.example.com", "example.com", false],
    ["api.example.com", "*.example.com", true],
    ["example.com", "*.example.com", false],
    ["evilexample.com", "*.example.com", false],
    ["example.com.evil.net", "example.com", false],
  ])("%s against %s: %s", (host, pattern, expected) => {
    expect(matchesHostPattern(host, pattern)).toBe(expected);
  });
});

describe("filesystem policy: nested safety paths", () => {
  const backdate = (root: string) => {
    const past = new Date(Date.now() - 60_000);
    const visit = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(path.join(dir, entry.name));
      fs.utimesSync(dir, past, past);
    };
    visit(root);
  };

  it("finds a nested repository or configuration file created after an earlier call (the scan is reused only while nothing changed)", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-policy-")));
    try {
      fs.mkdirSync(path.join(root, "a", "one", ".git"), { recursive: true });
      fs.mkdirSync(path.join(root, "b", "deep"), { recursive: true });
      backdate(root);
      const policy = () => filesystemPolicy({ permissionContext: createEmptyPermissionContext(root), scope: "workingDirectories", tempDir: path.join(root, "tmp") });
      const first = policy();
      expect(first.denyWrite).toContain(path.join(root, "a", "one", ".git"));
      expect(policy()).toEqual(first);

      fs.mkdirSync(path.join(root, "b", "deep", ".git"));
      expect(policy().denyWrite).toContain(path.join(root, "b", "deep", ".git"));

      backdate(root);
      policy();
      fs.writeFileSync(path.join(root, "a", ".mcp.json"), "{}");
      expect(policy().denyWrite).toContain(path.join(root, "a", ".mcp.json"));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("filesystem policy: directory mount points for a long-lived process", () => {
  it("adds a path below each missing deny path (the runtime then mounts an empty directory there), none below one that exists", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-policy-")));
    try {
      fs.writeFileSync(path.join(root, ".gitmodules"), "");
      const policy = filesystemPolicy({ permissionContext: createEmptyPermissionContext(root), scope: "workingDirectories", tempDir: path.join(root, "tmp"), directoryPlaceholders: true });
      const below = (p: string) => policy.denyWrite.filter((d) => d.startsWith(`${p}/`));
      expect(policy.denyWrite).toContain(path.join(root, ".mcp.json"));
      expect(below(path.join(root, ".mcp.json"))).toHaveLength(1);
      expect(policy.denyWrite).toContain(path.join(root, ".gitmodules"));
      expect(below(path.join(root, ".gitmodules"))).toEqual([]);
      const plain = filesystemPolicy({ permissionContext: createEmptyPermissionContext(root), scope: "workingDirectories", tempDir: path.join(root, "tmp") });
      expect(plain.denyWrite.filter((d) => d.startsWith(`${path.join(root, ".mcp.json")}/`))).toEqual([]);
      const readOnly = filesystemPolicy({ permissionContext: createEmptyPermissionContext(root), scope: "none", tempDir: path.join(root, "tmp"), directoryPlaceholders: true });
      expect(readOnly.denyWrite).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
