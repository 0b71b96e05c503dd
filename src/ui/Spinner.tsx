/** Shows the model is working: a frame, the seconds since the request started, the tokens it produced. */
import { Text } from "ink";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export function Spinner({ startedAt, now, tokens, label = "Working" }: { startedAt: number; now: number; tokens: number; label?: string }) {
  const elapsed = Math.max(0, Math.floor((now - startedAt) / 1000));
  const frame = FRAMES[Math.floor(now / 100) % FRAMES.length];
  return (
    <Text>
      <Text color="cyan">{frame}</Text> {label}… <Text dimColor>({elapsed}s · ↓ {tokens} tokens · esc to interrupt)</Text>
    </Text>
  );
}
