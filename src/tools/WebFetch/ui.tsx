import { Box, Text } from "ink";
import type { ToolRenderer } from "../../ui/toolRenderer.js";
import { CollapsedText, ResultGutter, ToolRejected, contentText, formatBytes, formatDuration, isTextTruncated, num, oneLine, renderError, str } from "../../ui/components/index.js";

export interface WebFetchInput {
  url: string;
  prompt: string;
}

/** What the UI uses of WebFetch's output; every member is optional so an older or newer shape still draws. */
export interface WebFetchOutputView {
  url?: string;
  finalUrl?: string;
  status?: number;
  statusText?: string;
  bytes?: number;
  durationMs?: number;
  result?: string;
  cached?: boolean;
  /** A redirect to another host, not followed. */
  redirect?: { location: string; status: number };
}

const ANSWER_LINES = 6;

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

function answerOf(result: { output?: WebFetchOutputView; content: Parameters<typeof contentText>[0] }): string {
  return str(result.output?.result) ?? contentText(result.content);
}

export const renderer: ToolRenderer<WebFetchInput, WebFetchOutputView> = {
  userFacingName: () => "Fetch",
  renderToolUseMessage(input, options) {
    const url = str(input.url) ?? "";
    const prompt = str(input.prompt);
    return (
      <Text>
        {oneLine(url, Math.max(20, options.columns - 12))}
        {options.verbose && prompt ? <Text dimColor>{` · ${oneLine(prompt, 200)}`}</Text> : null}
      </Text>
    );
  },
  renderPermissionPreview(input) {
    const prompt = str(input.prompt);
    return (
      <Box flexDirection="column">
        <Text>{str(input.url) ?? ""}</Text>
        {prompt ? <Text dimColor>{`then asks of the page: ${oneLine(prompt, 300)}`}</Text> : null}
      </Box>
    );
  },
  renderToolResultMessage(result, input, options) {
    const output = result.output;
    const answer = answerOf(result);
    const host = hostOf(str(output?.finalUrl) ?? str(output?.url) ?? str(input.url) ?? "");
    const bytes = num(output?.bytes);
    const status = num(output?.status);
    const statusText = str(output?.statusText);
    const duration = num(output?.durationMs) ?? result.durationMs;
    const redirect = str(output?.redirect?.location);
    const facts = [
      redirect ? `Redirected to ${redirect}` : bytes !== undefined ? `Received ${formatBytes(bytes)}` : undefined,
      status !== undefined ? `${status}${statusText ? ` ${statusText}` : ""}` : undefined,
      host ? `from ${host}` : undefined,
      output?.cached === true ? "cached" : duration !== undefined ? formatDuration(duration) : undefined,
    ].filter(Boolean);
    return (
      <ResultGutter>
        {facts.length > 0 ? <Text>{facts.join(" · ")}</Text> : null}
        <CollapsedText text={answer} expanded={options.expanded} maxLines={ANSWER_LINES} dimColor />
      </ResultGutter>
    );
  },
  renderToolUseRejectedMessage(input, options) {
    return <ToolRejected what={`fetch ${hostOf(str(input.url) ?? "") ?? str(input.url) ?? ""}`} reason={options.reason} />;
  },
  renderToolUseErrorMessage: renderError,
  isResultTruncated: (result) => isTextTruncated(answerOf(result), ANSWER_LINES),
};
