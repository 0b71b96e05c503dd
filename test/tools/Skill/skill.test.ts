/**
 * Skills on real folders: a project (a git repository with nested packages), a fake toolgate home and a fake
 * user home. The Skill tool runs through the real pipeline with the real permission engine; discovery runs
 * through the real Edit and Write tools.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyTool } from "../../../src/core/Tool.js";
import { createEmptyPermissionContext } from "../../../src/core/context.js";
import type { PermissionRule } from "../../../src/core/permissionTypes.js";
import { hasPermissionsToUseTool } from "../../../src/permissions/index.js";
import { EditTool, ReadTool, SkillTool, WriteTool } from "../../../src/tools/index.js";
import { formatSkillListing, listingBudgetFor, loadSkillCatalog, MAX_SKILL_FILE_BYTES, type SkillCatalog, type SkillInfo } from "../../../src/tools/Skill/catalog.js";
import { closeSkillNames } from "../../../src/tools/Skill/index.js";
import { approveAll, tempDir, testContext } from "../../helpers.js";
import { resultText, runOne } from "../../mcp/helpers.js";

const tools: AnyTool[] = [SkillTool, EditTool, WriteTool, ReadTool];

function write(file: string, content: string | Buffer): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function skillFile(name: string, description: string | undefined, body = `Do the ${name} thing.\n`, extra = ""): string {
  const desc = description === undefined ? "" : `description: ${JSON.stringify(description)}\n`;
  return `---\nname: ${name}\n${desc}${extra}---\n${body}`;
}

/** A git repository with `app/` as the working directory, a toolgate home and a user home. */
function layout() {
  const root = tempDir("toolgate-skills-");
  fs.mkdirSync(path.join(root, "repo", ".git"), { recursive: true });
  const repo = path.join(root, "repo");
  const cwd = path.join(repo, "app");
  fs.mkdirSync(cwd, { recursive: true });
  const home = path.join(root, "toolgate-home");
  const userHome = path.join(root, "user");
  fs.mkdirSync(home);
  fs.mkdirSync(userHome);
  return { root, repo, cwd, home, userHome };
}

function context(l: ReturnType<typeof layout>, options: { rules?: PermissionRule[]; catalog?: SkillCatalog } = {}) {
  const ctx = testContext({
    tools,
    cwd: l.cwd,
    home: l.home,
    env: { ...process.env, HOME: l.userHome },
    permissionContext: { ...createEmptyPermissionContext(l.cwd), rules: options.rules ?? [] },
    permissionDecider: hasPermissionsToUseTool,
  });
  if (options.catalog) {
    ctx.skills = options.catalog;
    ctx.fileWriteObservers = [options.catalog];
  }
  return ctx;
}

const names = (skills: readonly SkillInfo[]) => skills.map((s) => s.name);

describe("the skills catalog", () => {
  it("finds project skills from the working directory up to the git root, and the user's, project first", async () => {
    const l = layout();
    write(path.join(l.cwd, ".toolgate/skills/near/SKILL.md"), skillFile("near", "Near the working directory."));
    write(path.join(l.repo, ".claude/skills/root-skill/SKILL.md"), skillFile("root-skill", "At the git root."));
    // Above the git root: not this project's.
    write(path.join(l.root, ".claude/skills/outside/SKILL.md"), skillFile("outside", "Above the repository."));
    write(path.join(l.home, "skills/mine/SKILL.md"), skillFile("mine", "In the toolgate home."));
    write(path.join(l.userHome, ".claude/skills/claude-mine/SKILL.md"), skillFile("claude-mine", "In ~/.claude."));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(names(catalog.list())).toEqual(["near", "root-skill", "mine", "claude-mine"]);
    expect(catalog.list().map((s) => s.scope)).toEqual(["project", "project", "user", "user"]);
    expect(catalog.find("near")).toMatchObject({ dir: path.join(l.cwd, ".toolgate/skills/near"), file: path.join(l.cwd, ".toolgate/skills/near/SKILL.md"), description: "Near the working directory." });
    expect(catalog.problems).toEqual([]);
    expect(catalog.projectRoot).toBe(l.repo);
  });

  it("outside a git repository only the working directory's folders are the project's", async () => {
    const root = tempDir("toolgate-skills-nogit-");
    const cwd = path.join(root, "work");
    write(path.join(cwd, ".claude/skills/here/SKILL.md"), skillFile("here", "Here."));
    write(path.join(root, ".claude/skills/parent/SKILL.md"), skillFile("parent", "In the parent."));
    const catalog = await loadSkillCatalog({ cwd, home: path.join(root, "h"), userHome: path.join(root, "u") });
    expect(names(catalog.list())).toEqual(["here"]);
  });

  it("working in the home directory, ~/.claude/skills counts once, as the project's", async () => {
    const userHome = tempDir("toolgate-skills-home-");
    write(path.join(userHome, ".claude/skills/once/SKILL.md"), skillFile("once", "Only once."));
    const catalog = await loadSkillCatalog({ cwd: userHome, home: path.join(userHome, ".toolgate"), userHome });
    expect(catalog.list().map((s) => [s.name, s.scope])).toEqual([["once", "project"]]);
    expect(catalog.problems).toEqual([]);
  });

  it("on a name clash the project wins over the user, the nearest folder and .toolgate win, and each clash is reported", async () => {
    const l = layout();
    write(path.join(l.cwd, ".toolgate/skills/deploy/SKILL.md"), skillFile("deploy", "Project toolgate deploy."));
    write(path.join(l.cwd, ".claude/skills/deploy/SKILL.md"), skillFile("deploy", "Project claude deploy."));
    write(path.join(l.repo, ".toolgate/skills/deploy/SKILL.md"), skillFile("deploy", "Root deploy."));
    write(path.join(l.home, "skills/deploy/SKILL.md"), skillFile("deploy", "User deploy."));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(catalog.list()).toHaveLength(1);
    expect(catalog.find("deploy")!.description).toBe("Project toolgate deploy.");
    expect(catalog.problems).toHaveLength(3);
    for (const loser of [path.join(l.cwd, ".claude/skills/deploy/SKILL.md"), path.join(l.repo, ".toolgate/skills/deploy/SKILL.md"), path.join(l.home, "skills/deploy/SKILL.md")]) {
      expect(catalog.problems.some((p) => p.includes(loser) && p.includes("same name"))).toBe(true);
    }
  });

  it("reports and skips bad files, never crashes, and keeps the good ones", async () => {
    const l = layout();
    const skills = path.join(l.cwd, ".claude/skills");
    write(path.join(skills, "good/SKILL.md"), skillFile("good", "A good one."));
    write(path.join(skills, "unclosed/SKILL.md"), "---\nname: unclosed\ndescription: never closed\n");
    write(path.join(skills, "list/SKILL.md"), "---\n- a\n- b\n---\nbody\n");
    write(path.join(skills, "yaml/SKILL.md"), "---\nname: [unbalanced\n---\nbody\n");
    write(path.join(skills, "badname/SKILL.md"), skillFile('"two words\\nand a newline"', "Bad name."));
    write(path.join(skills, "nodesc/SKILL.md"), "---\nname: nodesc\n---\n\n");
    write(path.join(skills, "numdesc/SKILL.md"), "---\nname: numdesc\ndescription: [1, 2]\n---\nbody\n");
    write(path.join(skills, "tools/SKILL.md"), "---\nname: tools\ndescription: x\nallowed-tools: {a: 1}\n---\nbody\n");
    write(path.join(skills, "huge/SKILL.md"), skillFile("huge", "Too big.", "x".repeat(MAX_SKILL_FILE_BYTES + 1)));
    fs.mkdirSync(path.join(skills, "fifo"));
    execFileSync("mkfifo", [path.join(skills, "fifo/SKILL.md")]);
    fs.mkdirSync(path.join(skills, "device"));
    fs.symlinkSync("/dev/zero", path.join(skills, "device/SKILL.md"));
    fs.mkdirSync(path.join(skills, "dir-not-file/SKILL.md"), { recursive: true });
    fs.mkdirSync(path.join(skills, "empty-folder"));
    write(path.join(skills, "stray-file.md"), "not in a folder");
    fs.symlinkSync(path.join(l.root, "nowhere"), path.join(skills, "dangling"));

    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(names(catalog.list())).toEqual(["good"]);
    const problem = (folder: string) => catalog.problems.find((p) => p.startsWith(path.join(skills, folder, "SKILL.md")));
    expect(problem("unclosed")).toContain("no closing ---");
    expect(problem("list")).toContain("not a set of `key: value` lines");
    expect(problem("yaml")).toContain("the skill was skipped");
    expect(problem("badname")).toContain("is not usable");
    expect(problem("nodesc")).toContain("no description");
    expect(problem("numdesc")).toContain("description must be text");
    expect(problem("tools")).toContain("allowed-tools");
    expect(problem("huge")).toContain("more than the");
    expect(problem("fifo")).toContain("not a regular file");
    expect(problem("device")).toContain("not a regular file");
    expect(problem("dir-not-file")).toContain("not a regular file");
    expect(catalog.problems).toHaveLength(11);
  });

  it("refuses a project SKILL.md that links outside its project (a cloned repository pointing at a secret), not a user's", async () => {
    const l = layout();
    const secret = write(path.join(l.root, "secret.txt"), "---\ndescription: AKIA-SECRET-KEY\n---\ntoken\n");
    const skills = path.join(l.cwd, ".claude/skills");
    fs.mkdirSync(path.join(skills, "leak"), { recursive: true });
    fs.symlinkSync(secret, path.join(skills, "leak/SKILL.md"));
    fs.mkdirSync(path.join(skills, "relative-leak"), { recursive: true });
    fs.symlinkSync(path.relative(path.join(skills, "relative-leak"), secret), path.join(skills, "relative-leak/SKILL.md"));
    write(path.join(l.root, "elsewhere/linked/SKILL.md"), skillFile("linked", "A folder outside the project."));
    fs.symlinkSync(path.join(l.root, "elsewhere/linked"), path.join(skills, "linked"));
    // Inside the project a link is fine.
    write(path.join(l.cwd, "docs/inside.md"), skillFile("inside", "Kept in docs."));
    fs.mkdirSync(path.join(skills, "inside"));
    fs.symlinkSync(path.join(l.cwd, "docs/inside.md"), path.join(skills, "inside/SKILL.md"));
    // The user's own skills may link anywhere.
    fs.mkdirSync(path.join(l.home, "skills"), { recursive: true });
    fs.symlinkSync(path.join(l.root, "elsewhere/linked"), path.join(l.home, "skills/linked-by-user"));

    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(catalog.list().map((s) => [s.name, s.scope])).toEqual([["inside", "project"], ["linked", "user"]]);
    for (const folder of ["leak", "relative-leak", "linked"]) {
      expect(catalog.problems.find((p) => p.startsWith(path.join(skills, folder, "SKILL.md")))).toContain("outside");
    }
    expect(JSON.stringify(catalog.list())).not.toContain("AKIA");

    // Swapped for a link after the session started: the Skill tool refuses it too.
    fs.rmSync(path.join(skills, "inside/SKILL.md"));
    fs.symlinkSync(secret, path.join(skills, "inside/SKILL.md"));
    const { result } = await runOne("Skill", { skill: "inside" }, context(l, { catalog }), approveAll);
    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toContain("outside");
    expect(resultText(result)).not.toContain("token");
  });

  it("looks at no more than 1,000 entries of one skills folder, and says so", async () => {
    const l = layout();
    const skills = path.join(l.cwd, ".claude/skills");
    for (let i = 0; i < 1_005; i++) write(path.join(skills, `s${String(i).padStart(4, "0")}/SKILL.md`), skillFile(`s${String(i).padStart(4, "0")}`, `Skill ${i}.`));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(catalog.list()).toHaveLength(1_000);
    expect(catalog.find("s0999")).toBeDefined();
    expect(catalog.find("s1000")).toBeUndefined();
    expect(catalog.problems).toEqual([`${skills}: 1005 entries; only the first 1000 (in name order) were looked at`]);
  });

  it("takes the name from the folder and the description from the first paragraph when the front matter has none", async () => {
    const l = layout();
    write(path.join(l.cwd, ".claude/skills/pdf-forms/SKILL.md"), "# Filling PDF forms\n\nUse pdftk.\n");
    write(path.join(l.cwd, ".claude/skills/tools-listed/SKILL.md"), skillFile("tools-listed", "With tools.", "b\n", "allowed-tools: Read, Bash(pdftk:*)\n"));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(catalog.find("pdf-forms")).toMatchObject({ name: "pdf-forms", description: "Filling PDF forms" });
    expect(catalog.find("tools-listed")!.allowedTools).toEqual(["Read", "Bash(pdftk:*)"]);
    // Descriptions are one line however the YAML folded them: nothing can break the listing's layout.
    write(path.join(l.cwd, ".claude/skills/multi/SKILL.md"), "---\ndescription: |\n  line one\n  </skills>\n  line three\n---\nbody\n");
    const again = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(again.find("multi")!.description).toBe("line one </skills> line three");
  });
});

describe("the skills listing", () => {
  const make = (count: number, descriptionLength: number): SkillInfo[] =>
    Array.from({ length: count }, (_, i) => ({ name: `skill-${String(i).padStart(3, "0")}`, description: `Does task ${i}. ${"detail ".repeat(descriptionLength)}`.trim(), dir: `/s/${i}`, file: `/s/${i}/SKILL.md`, scope: "project" as const }));

  it("lists every skill whole when it fits, and nothing when there are none", () => {
    expect(formatSkillListing([])).toBeUndefined();
    const listing = formatSkillListing(make(3, 2))!;
    expect(listing.startsWith("<skills>\n")).toBe(true);
    expect(listing.endsWith("\n</skills>")).toBe(true);
    expect(listing).toContain("- skill-000: Does task 0. detail detail\n");
    expect(listing).not.toContain("…");
  });

  it("caps a long description, then shortens all, then drops skills with a +N more line, never over budget", () => {
    const one = formatSkillListing(make(1, 200))!;
    expect(one).toMatch(/- skill-000: Does task 0\. (detail ){10,}.*…/);
    expect(one.split("\n")[2].length).toBeLessThanOrEqual(2 + 9 + 2 + 250);

    const many = make(40, 60);
    const shortened = formatSkillListing(many, 6_000)!;
    expect(shortened.length).toBeLessThanOrEqual(6_000);
    for (const skill of many) expect(shortened).toContain(`- ${skill.name}: Does task`);
    expect(shortened).not.toContain("more skills not listed");

    const dropped = formatSkillListing(many, 2_000)!;
    expect(dropped.length).toBeLessThanOrEqual(2_000);
    const listed = many.filter((s) => dropped.includes(`- ${s.name}:`)).length;
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThan(40);
    expect(dropped).toContain(`- (+${40 - listed} more skills not listed for space`);
    // The first skills are kept, in order.
    expect(many.slice(0, listed).every((s) => dropped.includes(`- ${s.name}:`))).toBe(true);

    for (const budget of [1_000, 1_500, 3_333, 4_096, 9_999]) expect(formatSkillListing(many, budget)!.length).toBeLessThanOrEqual(budget);
  });

  it("takes about 1% of the model's context window", () => {
    expect(listingBudgetFor(200_000)).toBe(8_000);
    expect(listingBudgetFor(1_000_000)).toBe(40_000);
    expect(listingBudgetFor(undefined)).toBe(8_000);
    expect(listingBudgetFor(10_000)).toBe(1_000);
  });
});

describe("the Skill tool through the pipeline", () => {
  async function withSkills() {
    const l = layout();
    const dir = path.join(l.cwd, ".claude/skills/release-notes");
    write(path.join(dir, "SKILL.md"), skillFile("release-notes", "Write release notes from the git log.", "Write notes for $ARGUMENTS.\nList authors with: git log | awk '{print $1}'\nSee template.md and scripts/collect.sh.\n", "allowed-tools: Bash(git log:*)\n"));
    write(path.join(dir, "template.md"), "# Release $VERSION\n");
    write(path.join(dir, "scripts/collect.sh"), "git log\n");
    write(path.join(l.cwd, ".claude/skills/release-check/SKILL.md"), skillFile("release-check", "Check a release."));
    write(path.join(l.home, "skills/deploy/SKILL.md"), skillFile("deploy", "Deploy the service."));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    return { l, dir, catalog };
  }

  it("returns the instructions with the arguments put in, the folder and its files", async () => {
    const { l, dir, catalog } = await withSkills();
    const { result } = await runOne("Skill", { skill: "release-notes", args: "2.1 backend" }, context(l, { catalog }), approveAll);
    expect(result.outcome).toBe("success");
    const text = resultText(result);
    expect(text).toContain(`Loaded the skill "release-notes" from ${path.join(dir, "SKILL.md")}`);
    expect(text).toContain(`relative to the skill's folder ${dir}`);
    expect(text).toContain(`Files in that folder (read them with Read when the instructions call for them): template.md, ${path.join("scripts", "collect.sh")}.`);
    // Only $ARGUMENTS is filled in a skill: the $1 of a shell snippet stays.
    expect(text).toContain("<skill-instructions>\nWrite notes for 2.1 backend.\nList authors with: git log | awk '{print $1}'\nSee template.md");
    expect(text).toContain("Bash(git log:*)");
    expect(text).not.toContain("name: release-notes");
  });

  it("an unknown name is an error naming the close ones and every skill", async () => {
    const { l, catalog } = await withSkills();
    const { result } = await runOne("Skill", { skill: "release-note" }, context(l, { catalog }), approveAll);
    expect(result.block.is_error).toBe(true);
    const text = resultText(result);
    expect(text).toContain('There is no skill named "release-note". Did you mean "release-notes"?');
    expect(text).toContain("Skills available: release-check, release-notes, deploy.");
    expect(closeSkillNames("DEPLOI", ["deploy", "release-notes"])).toEqual(["deploy"]);
    expect(closeSkillNames("zzz", ["deploy"])).toEqual([]);
  });

  it("with no skills installed says where skills go", async () => {
    const l = layout();
    const { result } = await runOne("Skill", { skill: "anything" }, context(l), approveAll);
    expect(result.block.is_error).toBe(true);
    expect(resultText(result)).toContain("no skills are installed");
  });

  it("without a session catalog (exec, mcp serve) reads the skills on disk for the working directory", async () => {
    const { l } = await withSkills();
    const { result } = await runOne("Skill", { skill: "deploy" }, context(l), approveAll);
    expect(result.outcome).toBe("success");
    expect(resultText(result)).toContain("Do the deploy thing.");
  });

  it("reads SKILL.md when called: an edit since the session started shows, a deleted one is an error", async () => {
    const { l, dir, catalog } = await withSkills();
    fs.writeFileSync(path.join(dir, "SKILL.md"), skillFile("release-notes", "Changed.", "New instructions.\n"));
    const changed = await runOne("Skill", { skill: "release-notes" }, context(l, { catalog }), approveAll);
    expect(resultText(changed.result)).toContain("<skill-instructions>\nNew instructions.\n</skill-instructions>");
    fs.rmSync(path.join(dir, "SKILL.md"));
    const gone = await runOne("Skill", { skill: "release-notes" }, context(l, { catalog }), approveAll);
    expect(gone.result.block.is_error).toBe(true);
    expect(resultText(gone.result)).toContain("no longer exists");
  });

  it("obeys Skill(name) rules and Read rules that cover the SKILL.md", async () => {
    const { l, catalog } = await withSkills();
    const deny = (toolName: string, ruleContent?: string): PermissionRule => ({ source: "session", ruleBehavior: "deny", ruleValue: { toolName, ...(ruleContent ? { ruleContent } : {}) } });
    const byName = await runOne("Skill", { skill: "deploy" }, context(l, { catalog, rules: [deny("Skill", "deploy")] }), approveAll);
    expect(byName.result.outcome).toBe("denied");
    expect(resultText(byName.result)).toContain("Skill(deploy)");
    const other = await runOne("Skill", { skill: "release-check" }, context(l, { catalog, rules: [deny("Skill", "deploy")] }), approveAll);
    expect(other.result.outcome).toBe("success");
    const prefix = await runOne("Skill", { skill: "release-check" }, context(l, { catalog, rules: [deny("Skill", "release:*")] }), approveAll);
    expect(prefix.result.outcome).toBe("denied");
    const whole = await runOne("Skill", { skill: "deploy" }, context(l, { catalog, rules: [deny("Skill")] }), approveAll);
    expect(whole.result.outcome).toBe("denied");
    const byRead = await runOne("Skill", { skill: "deploy" }, context(l, { catalog, rules: [deny("Read", `/${l.home}/skills/**`)] }), approveAll);
    expect(byRead.result.outcome).toBe("denied");
    expect(resultText(byRead.result)).toContain("The skill deploy cannot be loaded.");
  });

  it("is read-only and concurrency-safe, and rejects input it does not know", async () => {
    expect(SkillTool.isReadOnly({ skill: "x" })).toBe(true);
    expect(SkillTool.isConcurrencySafe({ skill: "x" })).toBe(true);
    const { l, catalog } = await withSkills();
    const { result } = await runOne("Skill", { skill: "deploy", extra: 1 }, context(l, { catalog }), approveAll);
    expect(result.block.is_error).toBe(true);
  });
});

describe("discovery after a write", () => {
  it("an Edit in a nested package announces that package's skills, once, and the Skill tool loads them", async () => {
    const l = layout();
    const pkg = path.join(l.cwd, "packages/web");
    write(path.join(pkg, ".claude/skills/web-style/SKILL.md"), skillFile("web-style", "House style for the web package."));
    write(path.join(pkg, "src/.toolgate/skills/web-deep/SKILL.md"), skillFile("web-deep", "Deeper."));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    expect(catalog.list()).toEqual([]);
    const ctx = context(l, { catalog });

    const first = await runOne("Edit", { file_path: "packages/web/src/index.ts", old_string: "", new_string: "export {};\n" }, ctx, approveAll);
    expect(first.result.outcome).toBe("success");
    expect(fs.readFileSync(path.join(pkg, "src/index.ts"), "utf8")).toBe("export {};\n");
    const text = resultText(first.result);
    expect(text).toContain(`Skills were found near ${path.join("packages/web/src/index.ts")}`);
    expect(text).toContain("- web-deep: Deeper.");
    expect(text).toContain("- web-style: House style for the web package.");
    expect(names(catalog.list())).toEqual(["web-deep", "web-style"]);

    const loaded = await runOne("Skill", { skill: "web-style" }, ctx, approveAll);
    expect(resultText(loaded.result)).toContain("Do the web-style thing.");

    const second = await runOne("Edit", { file_path: "packages/web/src/index.ts", old_string: "export {};", new_string: "export const x = 1;" }, ctx, approveAll);
    expect(second.result.outcome).toBe("success");
    expect(resultText(second.result)).not.toContain("Skills were found");
  });

  it("a bad SKILL.md found after a write is named in the result, so the model can fix it", async () => {
    const l = layout();
    write(path.join(l.cwd, "pkg/.claude/skills/half/SKILL.md"), "---\nname: half\n");
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    const { result } = await runOne("Write", { file_path: "pkg/a.txt", content: "x\n" }, context(l, { catalog }), approveAll);
    expect(result.outcome).toBe("success");
    expect(resultText(result)).toContain(`Skill files near ${path.join("pkg/a.txt")} could not be used:\n- ${path.join(l.cwd, "pkg/.claude/skills/half/SKILL.md")}: the front matter`);
    expect(resultText(result)).not.toContain("Skills were found");
  });

  it("a Write outside the project, or under node_modules, discovers nothing", async () => {
    const l = layout();
    write(path.join(l.root, "elsewhere/.claude/skills/foreign/SKILL.md"), skillFile("foreign", "Not this project's."));
    write(path.join(l.cwd, "node_modules/dep/.claude/skills/dep-skill/SKILL.md"), skillFile("dep-skill", "From a dependency."));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    const ctx = context(l, { catalog });
    const outside = await runOne("Write", { file_path: path.join(l.root, "elsewhere/file.txt"), content: "x\n" }, ctx, approveAll);
    expect(outside.result.outcome).toBe("success");
    const dep = await runOne("Write", { file_path: "node_modules/dep/patched.js", content: "x\n" }, ctx, approveAll);
    expect(dep.result.outcome).toBe("success");
    expect(resultText(dep.result)).not.toContain("Skills were found");
    expect(catalog.list()).toEqual([]);
  });

  it("a SKILL.md written into a known skills folder is added (or reloaded) at once", async () => {
    const l = layout();
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    const file = write(path.join(l.cwd, ".claude/skills/fresh/SKILL.md"), skillFile("fresh", "Written during the session."));
    expect(names(await catalog.discoverNear(file))).toEqual(["fresh"]);
    fs.writeFileSync(file, skillFile("fresh", "Changed during the session."));
    await catalog.discoverNear(file);
    expect(catalog.find("fresh")!.description).toBe("Changed during the session.");
    expect(catalog.list()).toHaveLength(1);
  });

  it("a discovered project skill displaces a user skill of the same name, not a project one", async () => {
    const l = layout();
    write(path.join(l.home, "skills/lint/SKILL.md"), skillFile("lint", "User lint."));
    write(path.join(l.cwd, ".claude/skills/fmt/SKILL.md"), skillFile("fmt", "Project fmt."));
    write(path.join(l.cwd, "pkg/.claude/skills/lint/SKILL.md"), skillFile("lint", "Package lint."));
    write(path.join(l.cwd, "pkg/.claude/skills/fmt/SKILL.md"), skillFile("fmt", "Package fmt."));
    const catalog = await loadSkillCatalog({ cwd: l.cwd, home: l.home, userHome: l.userHome });
    await catalog.discoverNear(path.join(l.cwd, "pkg/a.ts"));
    expect(catalog.find("lint")!.description).toBe("Package lint.");
    expect(catalog.find("fmt")!.description).toBe("Project fmt.");
    expect(catalog.problems.some((p) => p.includes(path.join(l.cwd, "pkg/.claude/skills/fmt/SKILL.md")))).toBe(true);
  });
});
