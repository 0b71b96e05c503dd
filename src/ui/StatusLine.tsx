/** One line under the prompt: model, permission mode, context used, cost, and a pending approval. */
import { Box, Text } from "ink";

export interface StatusLineProps {
  model: string;
  mode: string;
  /** Share of the model's context window the last request used, 0-100; undefined before the first. */
  contextPercent?: number;
  /** USD; undefined for a model without a known price. */
  costUSD?: number;
  /** A permission question is waiting for the user. */
  pendingApproval?: boolean;
  /** A short hint (e.g. "Esc again to rewind"). */
  hint?: string;
}

export function formatCost(usd: number | undefined): string {
  if (usd === undefined) return "cost n/a";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function StatusLine({ model, mode, contextPercent, costUSD, pendingApproval, hint }: StatusLineProps) {
  const modeColor = mode === "default" ? undefined : mode === "bypassPermissions" ? "red" : mode === "plan" ? "blue" : "magenta";
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text dimColor>{model} · </Text>
        <Text color={modeColor}>{mode === "default" ? "default mode" : `${mode} mode`}</Text>
        <Text dimColor> (shift+tab) · context {contextPercent === undefined ? "0" : Math.min(100, Math.round(contextPercent))}% · {formatCost(costUSD)}</Text>
        {pendingApproval ? <Text color="yellow"> · approval pending</Text> : null}
        {hint ? <Text dimColor> · {hint}</Text> : null}
      </Text>
    </Box>
  );
}
