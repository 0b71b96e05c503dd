import { Box, Text } from "ink";
import type { GroupedUse, RenderOptions } from "../toolRenderer.js";
import { tint } from "./color.js";
import { plural } from "./format.js";
import { groupStatus, statusOf } from "./ToolMessages.js";
import { ResultGutter, ToolUseLine } from "./ToolUseLine.js";

/** Parallel searches as one block: "Search 3 patterns", then each one's summary and count. */
export function SearchGroup<Input, Output>({
  name,
  uses,
  options,
  summarize,
  describe,
}: {
  name: string;
  uses: readonly GroupedUse<Input, Output>[];
  options: RenderOptions;
  summarize: (input: Partial<Input>, options: RenderOptions) => string;
  describe: (output: Output | undefined) => string;
}) {
  const statuses = uses.map((u) => statusOf(u.result));
  return (
    <Box flexDirection="column">
      <ToolUseLine name={name} summary={<Text>{plural(uses.length, "pattern")}</Text>} status={groupStatus(statuses)} />
      {uses.map((use, i) => {
        const status = statuses[i];
        const failed = status === "error" || status === "rejected";
        const outcome = status === "running" ? "searching…" : status === "success" ? describe(use.result?.output) : status === "rejected" ? "rejected" : "failed";
        return (
          <ResultGutter key={use.toolUseID}>
            <Text>
              {summarize(use.input, options) || "…"}
              <Text dimColor={!failed} color={failed ? tint("red") : undefined}>{` · ${outcome}`}</Text>
            </Text>
          </ResultGutter>
        );
      })}
    </Box>
  );
}
