/** The matcher's pieces: words, wrappers, the read-only allowlist, analysis, suggestions, exit codes. */
import { describe, expect, it } from "vitest";
import {
  analyzeCommand,
  bashParserStatus,
  checkBashCommandPermission,
  isExactCommandRule,
  judgeReadOnly,
  shellScriptOf,
  stripWrappers,
  suggestRuleContent,
  type BashPermissionDeps,
} from "../../../src/tools/Bash/permissions/index.js";
import { canonicalText, decodeAnsiC, literalWord, quoteForDisplay } from "../../../src/shell/words.js";
import { isDangerousEnvName, isSafeEnvName } from "../../../src/shell/wrappers.js";
import { interpretExitCode, statusCommandName } from "../../../src/tools/Bash/exitCodes.js";
import type { PermissionResult } from "../../../src/core/permissionTypes.js";
import { permissionContext } from "./helpers.js";

const words = (...values: string[]) => values.map(literalWord);
const values = (ws: { value?: string }[]) => ws.map((w) => w.value);

describe("parser", () => {
  it("is loaded at import, before any synchronous check", () => {
    expect(bashParserStatus().ready).toBe(true);
  });
});

describe("words", () => {
  it("decodes $'…' strings", () => {
    expect(decodeAnsiC("a\\nb\\x72\\u00e9\\101\\'")).toBe("a\nbré" + "A'");
    expect(decodeAnsiC("\\c")).toBeUndefined();
  });

  it("quotes only what needs quoting", () => {
    expect(quoteForDisplay("src/a.ts")).toBe("src/a.ts");
    expect(quoteForDisplay("a b")).toBe("'a b'");
    expect(quoteForDisplay("it's")).toBe("'it'\\''s'");
    expect(quoteForDisplay("")).toBe("''");
    expect(canonicalText(words("git", "commit", "-m", "fix: a bug"))).toBe("git commit -m 'fix: a bug'");
  });

  it("takes quote removal from the AST", () => {
    const [part] = analyzeCommand(`g"i"t 'st'atus \\-s $'\\x2d'v`).parts;
    expect(part.allowViews).toContain("git status -s -v");
  });
});

describe("wrappers", () => {
  it.each([
    [["timeout", "5", "npm", "test"], ["npm", "test"], ["timeout"]],
    [["timeout", "--signal=KILL", "-k", "3", "1.5m", "ls"], ["ls"], ["timeout"]],
    [["time", "-p", "nice", "-n", "5", "nohup", "make"], ["make"], ["time", "nice", "nohup"]],
    [["nice", "-10", "ls"], ["ls"], ["nice"]],
    [["stdbuf", "-oL", "-e", "0", "grep", "x"], ["grep", "x"], ["stdbuf"]],
    [["xargs", "-0", "-n", "1", "-P4", "rm"], ["rm"], ["xargs"]],
    [["xargs"], ["echo"], ["xargs"]],
    [["env", "-i", "-u", "HOME", "A=1", "B=2", "node", "x.js"], ["node", "x.js"], ["env"]],
    [["command", "-p", "ls"], ["ls"], ["command"]],
    [["exec", "-a", "name", "ls"], ["ls"], ["exec"]],
  ])("%j → %j", (input, rest, stripped) => {
    const result = stripWrappers(words(...input), []);
    expect(values(result.words)).toEqual(rest);
    expect(result.wrappers).toEqual(stripped);
    expect(result.complex).toBeUndefined();
  });

  it("keeps a wrapper that has no command after it, and lookups", () => {
    expect(values(stripWrappers(words("env"), []).words)).toEqual(["env"]);
    expect(values(stripWrappers(words("timeout", "5"), []).words)).toEqual(["timeout", "5"]);
    expect(values(stripWrappers(words("command", "-v", "rm"), []).words)).toEqual(["command", "-v", "rm"]);
  });

  it("gives up on options it does not understand", () => {
    expect(stripWrappers(words("env", "-S", "rm -rf /"), []).complex).toMatch(/env option -S/);
    expect(stripWrappers(words("timeout", "soon", "ls"), []).complex).toMatch(/duration/);
    expect(stripWrappers(words("xargs", "--weird", "rm"), []).complex).toMatch(/xargs option/);
  });

  it("strips sudo only for deny and ask rules", () => {
    expect(values(stripWrappers(words("sudo", "-u", "root", "rm", "x"), []).words)).toEqual(["sudo", "-u", "root", "rm", "x"]);
    expect(values(stripWrappers(words("sudo", "-u", "root", "rm", "x"), [], true).words)).toEqual(["rm", "x"]);
  });

  it("records that xargs appends and pastes input", () => {
    expect(stripWrappers(words("xargs", "grep", "x"), []).appendsArgs).toBe(true);
    expect(stripWrappers(words("xargs", "-I{}", "cp", "{}", "d"), []).pastesInput).toBe(true);
  });

  it("finds shell -c scripts", () => {
    expect(shellScriptOf(words("bash", "-c", "ls"))).toMatchObject({ script: { value: "ls" } });
    expect(shellScriptOf(words("/bin/sh", "-ec", "ls"))).toMatchObject({ script: { value: "ls" } });
    expect(shellScriptOf(words("bash", "--norc", "-o", "pipefail", "-c", "ls", "arg0"))).toMatchObject({ script: { value: "ls" } });
    expect(shellScriptOf(words("bash", "script.sh"))).toBeUndefined();
    expect(shellScriptOf(words("bash", "-c"))).toMatchObject({ complex: expect.any(String) });
  });

  it("tells safe, unknown and dangerous variables apart", () => {
    expect(isSafeEnvName("LANG") && isSafeEnvName("LC_ALL") && isSafeEnvName("my_var")).toBe(true);
    expect(isSafeEnvName("FOO")).toBe(false);
    expect(isDangerousEnvName("FOO")).toBe(false);
    for (const name of ["PATH", "LD_PRELOAD", "GIT_SSH_COMMAND", "NODE_OPTIONS", "JAVA_HOME", "PYTHONPATH", "BASH_ENV", "npm_config_script_shell"]) {
      expect(isDangerousEnvName(name), name).toBe(true);
    }
  });
});

describe("read-only allowlist", () => {
  it.each([
    ["ls -la", true],
    ["git log --oneline", true],
    ["git -C sub status", false], // -C can point git at a crafted config (issue 10)
    ["git diff --output=x", false],
    ["git -c core.pager=x log", false],
    ["git branch", true],
    ["git branch -a -v", true],
    ["git branch new-feature", false],
    ["git branch -D main", false],
    ["git tag", true],
    ["git tag v1", false],
    ["git tag -l v1*", true],
    ["git config --get user.name", true],
    ["git config user.name me", false],
    ["git stash list", true],
    ["git stash", false],
    ["git push", false],
    ["find . -name x", true],
    ["find . -delete", false],
    ["find . -fprint out", false],
    ["rg --pre cat x", false],
    ["sort -o out in", false],
    ["sort -rno out in", false],
    ["sort -k2 in", true],
    ["uniq in out", false],
    ["date +%s", true],
    ["date 010100002030", false],
    ["hostname", true],
    ["hostname evil", false],
    ["printf -v x %s 1", true],
    ["printf -v PATH %s /tmp", false],
    ["command -v rm", true],
    ["tree -o out", false],
    ["npm test", false],
  ])("%s → %s", (command, readOnly) => {
    expect(judgeReadOnly(command.split(" ").map(literalWord)).readOnly).toBe(readOnly);
  });

  it("refuses dynamic or expanding arguments to programs with dangerous options", () => {
    const find = analyzeCommand("find . $ACTION").parts[0];
    expect(find.readOnly).toBe(false);
    expect(analyzeCommand("find * -name x").parts[0].readOnly).toBe(false);
    expect(analyzeCommand("cat $FILE").parts[0].readOnly).toBe(true);
  });
});

describe("analysis", () => {
  it("finds every simple command wherever it hides", () => {
    const { parts } = analyzeCommand('a && b | c; (d) & e `f` "$(g)" <(h) >(i) ${x:-$(j)} $((1 + $(k)))');
    expect(parts.map((p) => p.display).sort()).toEqual(
      ['a', 'b', 'c', 'd', 'e `f` "$(g)" <(h) >(i) ${x:-$(j)} $((1 + $(k)))', 'f', 'g', 'h', 'i', 'j', 'k'].sort(),
    );
  });

  it("counts words after a redirection as arguments", () => {
    const analysis = analyzeCommand("rm > /dev/null -rf /");
    expect(analysis.parts[0].allowViews).toContain("rm -rf /");
    expect(analysis.redirects.map((r) => r.target.value)).toEqual(["/dev/null"]);
  });

  it("sorts redirections into reads and writes and skips descriptor duplication", () => {
    const analysis = analyzeCommand("cmd < in > out 2>&1 >> log &> both >| forced 3> three >&2 2> err");
    expect(analysis.redirects.map((r) => `${r.access}:${r.target.value}`)).toEqual([
      "read:in",
      "write:out",
      "write:log",
      "write:both",
      "write:forced",
      "write:three",
      "write:err",
    ]);
  });

  it("recurses into bash -c and find -exec, and records cd targets", () => {
    const analysis = analyzeCommand("cd sub && bash -c 'cd ../x; find . -exec grep -l y {} +'");
    expect(analysis.directoryChanges).toEqual(["sub", "../x"]);
    expect(analysis.parts.map((p) => p.display)).toContain("grep -l y {}");
    expect(analysis.parts.find((p) => p.display.startsWith("bash"))?.denyOnly).toBe(true);
  });

  it("reports what cannot be judged", () => {
    expect(analyzeCommand("eval ls").complexity).toEqual(["eval runs a string as code"]);
    expect(analyzeCommand("ls (").complexity[0]).toMatch(/parse|incomplete/);
    expect(analyzeCommand("$X arg").complexity).toEqual(["the program to run is not a literal name"]);
    expect(analyzeCommand("ls *").complexity).toEqual([]);
    expect(analyzeCommand("l* -la").complexity[0]).toMatch(/pattern/);
    expect(analyzeCommand("bash -c 'bash -c \"bash -c \\\"bash -c \\\\\\\"bash -c ls\\\\\\\"\\\"\"'").complexity).toContain("shells are nested too deeply");
    expect(analyzeCommand("x; ".repeat(300)).complexity[0]).toMatch(/more than 256 commands/);
    expect(analyzeCommand("echo " + "$(".repeat(400) + ")".repeat(400)).complexity.length).toBeGreaterThan(0);
  });

  it("a here-document body runs substitutions only with an unquoted delimiter", () => {
    expect(analyzeCommand("cat <<EOF\n`id`\nEOF").complexity).toEqual(["a here-document runs command substitutions"]);
    expect(analyzeCommand("cat <<'EOF'\n`id`\nEOF").complexity).toEqual([]);
    expect(analyzeCommand('cat <<"EOF"\n$(id)\nEOF').complexity).toEqual([]);
    expect(analyzeCommand("cat <<EOF\n$HOME\nEOF").complexity).toEqual([]);
  });
});

describe("rule suggestions", () => {
  const suggest = (command: string) => suggestRuleContent(analyzeCommand(command).parts[0]);
  it.each([
    ["npm run test -- --watch", "npm run test:*"],
    ["npm install left-pad", "npm install:*"],
    ["git commit -m 'x y'", "git commit:*"],
    ["docker compose up -d", "docker compose up:*"],
    ["pytest -x tests", "pytest:*"],
    ["./scripts/build.sh --fast", "./scripts/build.sh:*"],
    ["rm -rf build", "rm -rf build"],
    ["curl -o x https://example.com", "curl -o x https://example.com"],
    ["python3 -c 'print(1)'", "python3 -c 'print(1)'"],
    ["make", "make"],
    ["timeout 60 npm run e2e", "npm run e2e:*"],
  ])("%s → %s", (command, rule) => {
    expect(suggest(command)).toBe(rule);
  });

  it("are offered for every scope, with every rule the command needs", () => {
    const cwd = "/project";
    const result = checkBashCommandPermission({ command: "npm ci && npm run build", permissionContext: permissionContext(cwd), cwd });
    expect(result.behavior).toBe("ask");
    const suggestions = (result as { suggestions: Array<{ destination: string; rules: unknown[] }> }).suggestions;
    expect(suggestions.map((s) => s.destination)).toEqual(["session", "localSettings", "projectSettings", "userSettings"]);
    expect(suggestions[0].rules).toEqual([
      { toolName: "Bash", ruleContent: "npm ci:*" },
      { toolName: "Bash", ruleContent: "npm run build:*" },
    ]);
  });
});

describe("rule forms and decision details", () => {
  it("exact rules are those without * or :*", () => {
    expect(isExactCommandRule("npm test")).toBe(true);
    expect(isExactCommandRule("npm run:*")).toBe(false);
    expect(isExactCommandRule("git *")).toBe(false);
    expect(isExactCommandRule("echo \\*")).toBe(true);
  });

  it("an exact rule cannot vouch for what xargs appends; a prefix rule can", () => {
    const cwd = "/project";
    const exact = checkBashCommandPermission({ command: "ls | xargs touch", permissionContext: permissionContext(cwd, { allow: ["Bash(touch)"] }), cwd });
    expect(exact.behavior).toBe("ask");
    const prefix = checkBashCommandPermission({ command: "ls | xargs touch", permissionContext: permissionContext(cwd, { allow: ["Bash(touch:*)"] }), cwd });
    expect(prefix.behavior).toBe("allow");
  });

  it("an allow rule must name a dangerous variable set in front of the command", () => {
    const cwd = "/project";
    const check = (allow: string) =>
      checkBashCommandPermission({ command: "NODE_OPTIONS=--inspect npm test", permissionContext: permissionContext(cwd, { allow: [allow] }), cwd }).behavior;
    expect(check("Bash(npm test)")).toBe("ask");
    expect(check("Bash(NODE_OPTIONS=--inspect npm test)")).toBe("allow");
  });

  it("deny beats an exact allow of the whole line", () => {
    const cwd = "/project";
    const result = checkBashCommandPermission({
      command: "ls && rm -rf /",
      permissionContext: permissionContext(cwd, { allow: ["Bash(ls && rm -rf /)"], deny: ["Bash(rm:*)"] }),
      cwd,
    });
    expect(result.behavior).toBe("deny");
  });

  it("checks redirection targets relative to every directory the command may cd into", () => {
    const checked: string[] = [];
    const deps: BashPermissionDeps = {
      getContentRulesForTool: () => [],
      matchCommandPattern: () => false,
      checkReadPermissionForPath: () => ({ behavior: "allow" }),
      checkWritePermissionForPath: (p): PermissionResult => {
        checked.push(p);
        return { behavior: "allow" };
      },
    };
    // a cd may fail, so after `;` every earlier directory stays possible
    checkBashCommandPermission({ command: "cd a; cd b; echo x > out", permissionContext: permissionContext("/p"), cwd: "/p" }, deps);
    expect(checked.sort()).toEqual(["/p/a/b/out", "/p/a/out", "/p/b/out", "/p/out"].sort());
    // after `&&` only the directory where both succeeded
    checked.length = 0;
    checkBashCommandPermission({ command: "cd a && cd b && echo x > out", permissionContext: permissionContext("/p"), cwd: "/p" }, deps);
    expect(checked).toEqual(["/p/a/b/out"]);
  });

  it("a command whose cd target is unknown cannot read files unasked", () => {
    const cwd = "/project";
    const result = checkBashCommandPermission({ command: 'cd "$DIR" && cat notes.txt', permissionContext: permissionContext(cwd), cwd });
    expect(result.behavior).toBe("ask");
  });
});

describe("exit codes", () => {
  it.each([
    ["grep x f", "grep"],
    ["cat f | grep x", "grep"],
    ["ls && timeout 5 rg x", "rg"],
    ["grep x f; echo", "echo"],
    ["(diff a b)", "diff"],
    ["{ test -f x; }", "test"],
    ["[ -f x ] > /dev/null", "["],
    ["! grep x f", undefined],
    ["if true; then grep x; fi", undefined],
    ["/usr/bin/find .", "find"],
  ])("%s is judged on %s", (command, name) => {
    expect(statusCommandName(command)).toBe(name);
  });

  it("exit 1 is benign only for the listed programs", () => {
    expect(interpretExitCode("grep x f", 1).isError).toBe(false);
    expect(interpretExitCode("grep x f", 2).isError).toBe(true);
    expect(interpretExitCode("false", 1).isError).toBe(true);
    expect(interpretExitCode("sleep 9", 143)).toEqual({ isError: true, note: "(a process was killed by SIGTERM)" });
  });
});
