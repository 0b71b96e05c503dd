import { Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { ResultGutter, plural, renderError, str, tint } from "../../ui/components/index.js";
import type { ToolSearchInput, ToolSearchOutput } from "./index.js";

export const renderer: ToolRenderer<ToolSearchInput, ToolSearchOutput> = {
  userFacingName: () => "Tool Search",
  renderToolUseMessage(input) {
    const query = str(input.query);
    return <Text>{query === undefined ? "" : JSON.stringify(query)}</Text>;
  },
  renderToolResultMessage(result) {
    const output = result.output;
    if (!output) return null;
    const matches = (output.matches ?? []).map((name) => str(name) ?? "");
    const notFound = (output.notFound ?? []).map((name) => str(name) ?? "");
    return (
      <ResultGutter>
        <Text>{matches.length > 0 ? `Loaded ${plural(matches.length, "tool")}: ${matches.join(", ")}` : "No matching tools"}</Text>
        {notFound.length > 0 ? <Text color={tint("yellow")}>{`Not found: ${notFound.join(", ")}`}</Text> : null}
        {matches.length === 0 && (output.unavailableServers ?? []).length > 0 ? <Text dimColor>{(output.unavailableServers ?? []).map((line) => str(line) ?? "").join("\n")}</Text> : null}
      </ResultGutter>
    );
  },
  renderToolUseErrorMessage: renderError,
};
