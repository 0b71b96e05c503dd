export const SKILL_TOOL_NAME = "Skill";

export const SKILL_DESCRIPTION = "Load a skill's instructions (a SKILL.md the user installed) by name.";

export const SKILL_PROMPT = `Load the instructions of a skill by its name.

Skills are folders the user installed, each with a SKILL.md holding instructions for one kind of task (a release checklist, a house style for reports, how to work with some file format). The skills available are listed in the system prompt under <skills>, by name and description; more may be announced later, for example after you write a file near a project's skills folder.

- When the task in front of you matches a skill's description, call this tool with that name first and follow the instructions it returns.
- "args" is optional text for the skill (what to work on); it is put where the instructions expect it.
- The result names the skill's folder and the other files in it. When the instructions point at one of them (a script, a template, a reference), read it with Read, or run it with Bash, using the folder's path.
- A skill that is already loaded in this conversation does not need loading again.
- Do not call this tool for skills that are not listed or announced; an unknown name returns the names that exist.`;
