import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import type { SkillCatalogAccess, SkillInfo, ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import { expandArguments } from "../../util/promptArguments.js";
import { editDistance } from "../files/similarPath.js";
import { readDenial } from "../files/toolPaths.js";
import { SKILL_FILE_NAME, loadSkillCatalog, readSkillFile } from "./catalog.js";
import { SKILL_DESCRIPTION, SKILL_PROMPT, SKILL_TOOL_NAME } from "./prompt.js";

export { SKILL_TOOL_NAME };

/** Files of the skill's folder named in the result; the rest are counted. */
const MAX_LISTED_RESOURCES = 50;
const MAX_RESOURCE_DEPTH = 3;
const MAX_LISTED_NAMES = 40;

const inputSchema = z.strictObject({
  skill: z.string().describe('The skill\'s name as listed, e.g. "release-notes"'),
  args: z.string().optional().describe("Optional text for the skill: what to work on"),
});

export type SkillInput = z.infer<typeof inputSchema>;

export interface SkillOutput {
  name: string;
  scope: SkillInfo["scope"];
  /** The skill's folder: its resources are read from here. */
  dir: string;
  file: string;
  /** The instructions, with the arguments put in. */
  body: string;
  /** Other files in the folder, relative to it. */
  resources: string[];
  /** Files not named in `resources` for space. */
  moreResources: number;
  allowedTools?: string[];
}

interface PreparedSkill {
  skill: SkillInfo;
  body: string;
}

const ERROR_UNKNOWN = 1;
const ERROR_UNREADABLE = 2;

/** The session's catalog, or (exec, mcp serve) the skills on disk for the session's directory. */
async function catalogOf(context: ToolUseContext): Promise<SkillCatalogAccess> {
  return context.skills ?? (await loadSkillCatalog({ cwd: context.getCwd(), home: context.paths.home, userHome: context.env.HOME }));
}

function findSkill(skills: readonly SkillInfo[], name: string): SkillInfo | undefined {
  const wanted = name.trim();
  return skills.find((s) => s.name === wanted) ?? skills.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
}

/** Names within a few typos of `name`, or containing it, closest first. */
export function closeSkillNames(name: string, names: readonly string[]): string[] {
  const wanted = name.trim().toLowerCase();
  return names
    .map((candidate) => {
      const lower = candidate.toLowerCase();
      const distance = editDistance(wanted, lower);
      const related = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower));
      return { candidate, distance, close: related || distance <= Math.max(2, Math.floor(lower.length / 3)) };
    })
    .filter((c) => c.close)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, 5)
    .map((c) => c.candidate);
}

function unknownSkillMessage(name: string, skills: readonly SkillInfo[]): string {
  if (!skills.length) {
    return `There is no skill named ${JSON.stringify(name)}: no skills are installed. Skills are folders with a SKILL.md under .toolgate/skills/ or .claude/skills/ (in the project or the home directory). Go on without one.`;
  }
  const names = skills.map((s) => s.name);
  const close = closeSkillNames(name, names);
  const parts = [`There is no skill named ${JSON.stringify(name)}.`];
  if (close.length) parts.push(`Did you mean ${close.map((c) => JSON.stringify(c)).join(" or ")}?`);
  const shown = names.slice(0, MAX_LISTED_NAMES).join(", ");
  parts.push(`Skills available: ${shown}${names.length > MAX_LISTED_NAMES ? ` (and ${names.length - MAX_LISTED_NAMES} more)` : ""}.`);
  return parts.join(" ");
}

/** The folder's other files, breadth first, relative paths; symlinked folders are named, not entered. */
async function listResources(dir: string): Promise<{ resources: string[]; more: number }> {
  const resources: string[] = [];
  let more = 0;
  let level = [""];
  for (let depth = 0; depth < MAX_RESOURCE_DEPTH && level.length; depth++) {
    const next: string[] = [];
    for (const relative of level) {
      let entries;
      try {
        entries = await fs.readdir(path.join(dir, relative), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const name = path.join(relative, entry.name);
        if (name === SKILL_FILE_NAME) continue;
        if (entry.isDirectory()) {
          next.push(name);
          continue;
        }
        if (resources.length < MAX_LISTED_RESOURCES) resources.push(name);
        else more++;
      }
    }
    level = next;
  }
  return { resources, more };
}

async function prepare(input: SkillInput, context: ToolUseContext): Promise<{ ok: true; plan: PreparedSkill } | { ok: false; message: string; errorCode: number }> {
  const skills = (await catalogOf(context)).list();
  const skill = findSkill(skills, input.skill);
  if (!skill) return { ok: false, message: unknownSkillMessage(input.skill, skills), errorCode: ERROR_UNKNOWN };
  // Read now, not at session start: the instructions are the file as it is when the model asks for them.
  const { loaded, body } = await readSkillFile(skill.dir, skill.scope, skill.plugin);
  if (!loaded || "problem" in loaded || body === undefined) {
    const why = loaded && "problem" in loaded ? loaded.problem : `${skill.file} no longer exists`;
    return { ok: false, message: `The skill ${skill.name} cannot be loaded: ${why}.`, errorCode: ERROR_UNREADABLE };
  }
  return { ok: true, plan: { skill: loaded.skill, body } };
}

export const SkillTool = buildTool<SkillInput, SkillOutput>({
  name: SKILL_TOOL_NAME,
  searchHint: "load skill instructions SKILL.md playbook",
  inputSchema,
  maxResultSizeChars: 100_000,
  description: () => SKILL_DESCRIPTION,
  prompt: () => SKILL_PROMPT,
  userFacingName: () => "Skill",
  describeInput: (input) => (input.skill ? `${input.skill}${input.args ? ` ${input.args}` : ""}` : ""),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => input.skill,
  async validateInput(input, context) {
    const prepared = await prepare(input, context);
    return prepared.ok ? { result: true, prepared: prepared.plan } : { result: false, message: prepared.message, errorCode: prepared.errorCode };
  },
  // Skills are text the user installed, so loading one is allowed like reading a file the session may read; a
  // Read deny rule covering the SKILL.md, or a `Skill(name)` deny or ask rule, still applies.
  async checkPermissions(input, context) {
    const skill = findSkill((await catalogOf(context)).list(), input.skill);
    const denied = skill ? readDenial(skill.file, context) : undefined;
    if (denied) return { behavior: "deny", message: `${denied} The skill ${skill!.name} cannot be loaded.`, decisionReason: { type: "tool", reason: "a Read rule denies the skill's SKILL.md" } };
    return { behavior: "allow", updatedInput: input, decisionReason: { type: "tool", reason: "Skill only loads instructions the user installed" } };
  },
  async preparePermissionMatcher(input) {
    const name = input.skill.trim();
    return (ruleContent) => (ruleContent.endsWith("*") ? name.startsWith(ruleContent.slice(0, -1).replace(/:$/, "")) : ruleContent === name);
  },
  async call(input, context) {
    let plan = context.validated as PreparedSkill | undefined;
    if (!plan) {
      const prepared = await prepare(input, context);
      if (!prepared.ok) throw new Error(prepared.message);
      plan = prepared.plan;
    }
    const { skill, body } = plan;
    const { resources, more } = await listResources(skill.dir);
    return {
      data: {
        name: skill.name,
        scope: skill.scope,
        dir: skill.dir,
        file: skill.file,
        body: input.args === undefined ? body : expandArguments(body, input.args, { positional: false }),
        resources,
        moreResources: more,
        ...(skill.allowedTools ? { allowedTools: skill.allowedTools } : {}),
      },
    };
  },
  mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
    const lines = [
      `Loaded the skill "${output.name}" from ${output.file}. Follow its instructions below. Relative paths in them are relative to the skill's folder ${output.dir}.`,
    ];
    if (output.resources.length) {
      lines.push(`Files in that folder (read them with Read when the instructions call for them): ${output.resources.join(", ")}${output.moreResources ? ` (and ${output.moreResources} more)` : ""}.`);
    }
    if (output.allowedTools?.length) {
      lines.push(`The skill names the tools it expects: ${output.allowedTools.join(", ")}. Calls to them are still checked by the user's permission rules.`);
    }
    lines.push("<skill-instructions>", output.body.trimEnd(), "</skill-instructions>");
    return { type: "tool_result", tool_use_id: toolUseID, content: lines.join("\n") };
  },
});
