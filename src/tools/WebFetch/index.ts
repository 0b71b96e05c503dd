import { z } from "zod";
import { buildTool } from "../../core/buildTool.js";
import { readSettingsSection } from "../../core/context.js";
import type { AnyTool, ToolUseContext } from "../../core/Tool.js";
import type { ToolResultBlockParam } from "../../core/messages.js";
import { formatError } from "../../core/errors.js";
import { domainRuleContentForUrl, getContentRulesForTool, hostOfUrl, matchDomainRule, ruleSuggestions } from "../../permissions/index.js";
import { addressesNamedByRules, type AddressPolicy } from "./address.js";
import type { HostResolver } from "./connect.js";
import { cachePage, getCachedPage, type CachedPage } from "./cache.js";
import { MAX_HTML_CHARS } from "./convert.js";
import { convertBodyOffThread } from "./convertOffThread.js";
import { DEFAULT_TIMEOUT_MS, MAX_RESPONSE_BYTES, WebFetchError, fetchPage } from "./fetchPage.js";
import { ANSWER_SYSTEM_PROMPT, WEB_FETCH_DESCRIPTION, WEB_FETCH_TOOL_NAME, answerPrompt, webFetchPrompt } from "./prompt.js";
import { checkFetchUrl } from "./url.js";

export { WebFetchError } from "./fetchPage.js";
export { checkFetchUrl, isLoopbackHost, isSameHostRedirect } from "./url.js";
export { canonicalAddress, classifyAddress, judgeAddress, type AddressPolicy } from "./address.js";
export type { HostResolver, ResolvedAddress } from "./connect.js";

/** Page text the small model reads at most (about 25k tokens). */
export const MAX_PAGE_CHARS_FOR_MODEL = 100_000;
/** Page text returned as the result when no model answers; below the size at which results are persisted. */
export const MAX_PAGE_CHARS_AS_RESULT = 40_000;

const inputSchema = () =>
  z.strictObject({
    url: z.string().min(1).describe("The URL to fetch, with its scheme: https://…"),
    prompt: z.string().min(1).describe("What to find out from the page; a small model answers it from the page's content."),
  });

export type WebFetchInput = z.infer<ReturnType<typeof inputSchema>>;

export interface WebFetchOutput {
  /** The URL requested (after an http → https upgrade). */
  url: string;
  /** The URL that answered, when same-host redirects led elsewhere. */
  finalUrl?: string;
  /** HTTP status of the last response (the redirect's, for a cross-host redirect). */
  status: number;
  statusText: string;
  contentType: string;
  /** Body bytes read (at most 10 MB). */
  bytes: number;
  durationMs: number;
  /** What the model reads: the answer, the page text, or the redirect notice. */
  result: string;
  cached: boolean;
  /** A redirect to another host, not followed. */
  redirect?: { location: string; status: number };
  /** The model that answered the prompt; absent when the page text itself is the result. */
  answeredBy?: string;
  /** The page text was cut (10 MB body cap or the size sent to the model / returned). */
  truncated: boolean;
}

/** `webFetch` in settings.json: the timeout per phase (connect and headers, then body), default 30 s. */
export const WEB_FETCH_SETTINGS = {
  key: "webFetch",
  schema: z.looseObject({ timeoutMs: z.number().int().positive().max(600_000).optional() }),
};

function cut(text: string, max: number): { text: string; cut: boolean } {
  return text.length <= max ? { text, cut: false } : { text: text.slice(0, max), cut: true };
}

function sizeLabel(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

/** The addresses `WebFetch(domain:<address>)` rules name: the only non-public addresses WebFetch connects to. */
function addressPolicy(context: ToolUseContext): AddressPolicy {
  const permissions = context.getAppState().toolPermissionContext;
  const contents = (behavior: "allow" | "deny") => getContentRulesForTool(permissions, WEB_FETCH_TOOL_NAME, behavior).map((rule) => rule.ruleValue.ruleContent ?? "");
  return { allowed: addressesNamedByRules(contents("allow")), denied: addressesNamedByRules(contents("deny")) };
}

/** A redirect to another spelling of the host is followed only when the rules allow that URL outright. */
async function rulesAllow(tool: AnyTool, url: URL, input: WebFetchInput, context: ToolUseContext): Promise<boolean> {
  if (!context.permissionDecider) return false;
  const decision = await context.permissionDecider(tool, { ...input, url: url.href }, context, { toolUseID: context.toolUseID ?? "" });
  return decision.behavior === "allow";
}

async function loadPage(
  tool: AnyTool,
  url: URL,
  input: WebFetchInput,
  context: ToolUseContext,
  resolveHost: HostResolver | undefined,
): Promise<{ page: CachedPage; cached: boolean } | { redirect: { from: string; location: string; status: number } }> {
  const key = url.href;
  const hit = getCachedPage(key);
  if (hit) return { page: hit, cached: true };
  const settings = readSettingsSection(context, WEB_FETCH_SETTINGS);
  const fetched = await fetchPage(url, {
    signal: context.abortController.signal,
    timeoutMs: settings?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    addressPolicy: addressPolicy(context),
    mayFollow: (next) => rulesAllow(tool, next, input, context),
    ...(resolveHost ? { resolveHost } : {}),
  });
  if (fetched.kind === "redirect") return { redirect: { from: fetched.url, location: fetched.location, status: fetched.status } };
  const converted = await convertBodyOffThread(fetched.body, fetched.contentType, fetched.url, context.abortController.signal);
  if (converted.kind === "binary") {
    throw new WebFetchError(
      `${fetched.url} is ${converted.mediaType}, a binary type: WebFetch reads only HTML and text (JSON, XML, plain text, …). Use a tool that handles ${converted.mediaType} files instead.`,
    );
  }
  const page: CachedPage = {
    url: fetched.url,
    status: fetched.status,
    statusText: fetched.statusText,
    contentType: fetched.contentType,
    bytes: fetched.body.length,
    content: converted.content,
    truncated: fetched.truncated,
    ...(converted.kind === "html" && converted.wholeBody ? { wholeBody: true } : {}),
    ...(converted.kind === "html" && converted.htmlCut ? { htmlCut: true } : {}),
  };
  // Error pages are not kept: the next try may succeed.
  if (fetched.status >= 200 && fetched.status < 300) cachePage(key, page);
  return { page, cached: false };
}

function statusNote(page: CachedPage): string | undefined {
  if (page.status >= 200 && page.status < 300) return undefined;
  return `The server answered HTTP ${page.status}${page.statusText ? ` ${page.statusText}` : ""}; the content below is that response.`;
}

function capNotes(page: CachedPage): string[] {
  return [
    ...(page.truncated ? [`The response was larger than ${sizeLabel(MAX_RESPONSE_BYTES)}; only its first ${sizeLabel(page.bytes)} were read.`] : []),
    ...(page.htmlCut ? [`The HTML was longer than ${MAX_HTML_CHARS} characters; only its beginning was converted.`] : []),
  ];
}

export interface WebFetchToolOptions {
  /** How host names are resolved; the system resolver by default. A seam for tests, which have no DNS. */
  resolveHost?: HostResolver;
}

export function createWebFetchTool(options: WebFetchToolOptions = {}) {
  const tool = buildTool<WebFetchInput, WebFetchOutput>({
    settingsSection: WEB_FETCH_SETTINGS,
    name: WEB_FETCH_TOOL_NAME,
    searchHint: "fetch url web page http download read website documentation",
    maxResultSizeChars: 100_000,
    inputSchema,
    description: () => WEB_FETCH_DESCRIPTION,
    prompt: () => webFetchPrompt(),
    userFacingName: () => "Fetch",
    describeInput: (input) => input.url ?? "",
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    interruptBehavior: () => "cancel",
    toAutoClassifierInput: (input) => `${input.url}: ${input.prompt}`,
    isResultTruncated: (output) => output.truncated,
    inputsEquivalent: (a, b) => a.url.trim() === b.url.trim() && a.prompt.trim() === b.prompt.trim(),

    async validateInput(input) {
      const checked = checkFetchUrl(input.url);
      return checked.ok ? { result: true } : { result: false, message: checked.message, errorCode: 1 };
    },

    ruleFamily: "domain",
    async preparePermissionMatcher(input) {
      const checked = checkFetchUrl(input.url);
      // A URL WebFetch would refuse matches no rule, so no rule can allow it.
      const host = checked.ok ? hostOfUrl(checked.url.href) : undefined;
      return (ruleContent: string) => host !== undefined && matchDomainRule(ruleContent, host);
    },

    async checkPermissions(input) {
      const checked = checkFetchUrl(input.url);
      if (!checked.ok) return { behavior: "deny", message: checked.message, decisionReason: { type: "other", reason: "invalid URL" } };
      const content = domainRuleContentForUrl(checked.url.href);
      const host = hostOfUrl(checked.url.href) ?? checked.url.hostname;
      return {
        behavior: "passthrough",
        message: `WebFetch wants to fetch a page from ${host}.`,
        ...(content ? { suggestions: ruleSuggestions({ toolName: WEB_FETCH_TOOL_NAME, ruleContent: content }) } : {}),
      };
    },

    async call(input, context) {
      const started = Date.now();
      const checked = checkFetchUrl(input.url);
      if (!checked.ok) throw new WebFetchError(checked.message);
      const loaded = await loadPage(tool as AnyTool, checked.url, input, context, options.resolveHost);
      const base = { url: checked.url.href, durationMs: 0 };

      if ("redirect" in loaded) {
        const { from, location, status } = loaded.redirect;
        const result = `${from} redirects (HTTP ${status}) to a different host: ${location}
WebFetch follows a redirect by itself only to the same host (or to its www. form when the permission rules allow that too). To read the page, call WebFetch again with url "${location}" and the same prompt.`;
        return {
          data: { ...base, status, statusText: "", contentType: "", bytes: 0, durationMs: Date.now() - started, result, cached: false, redirect: { location, status }, truncated: false },
        };
      }

      const { page, cached } = loaded;
      const common = {
        ...base,
        ...(page.url !== checked.url.href ? { finalUrl: page.url } : {}),
        status: page.status,
        statusText: page.statusText,
        contentType: page.contentType,
        bytes: page.bytes,
        cached,
      };
      const notes = [statusNote(page), ...capNotes(page)].filter((n): n is string => Boolean(n));

      let fallbackReason = "no model is available in this session (toolgate exec and mcp serve run without one)";
      if (context.models) {
        const forModel = cut(page.content, MAX_PAGE_CHARS_FOR_MODEL);
        try {
          const answer = await context.models.ask({
            model: "small",
            system: ANSWER_SYSTEM_PROMPT,
            prompt: answerPrompt(page.url, forModel.text, input.prompt, forModel.cut || page.truncated || page.htmlCut === true),
            maxTokens: 2048,
            signal: context.abortController.signal,
          });
          if (answer.text.trim()) {
            const cutNote = forModel.cut ? `The page was longer than ${MAX_PAGE_CHARS_FOR_MODEL} characters; the answer is from its beginning.` : undefined;
            const all = [...notes, ...(cutNote ? [cutNote] : [])];
            return {
              data: {
                ...common,
                durationMs: Date.now() - started,
                result: all.length ? `${answer.text.trim()}\n\n(${all.join(" ")})` : answer.text.trim(),
                answeredBy: answer.model,
                truncated: page.truncated || page.htmlCut === true || forModel.cut,
              },
            };
          }
          fallbackReason = `the model (${answer.model}) gave an empty answer`;
        } catch (err) {
          if (context.abortController.signal.aborted) throw err;
          fallbackReason = `asking the model failed: ${formatError(err)}`;
        }
      }

      const shown = cut(page.content, MAX_PAGE_CHARS_AS_RESULT);
      const header = [
        `The prompt was not answered because ${fallbackReason}. Here is the page itself (${page.url}${page.wholeBody ? ", the whole body: no main article was found" : ""}); answer the prompt from it.`,
        ...notes,
        ...(shown.cut ? [`Only the first ${MAX_PAGE_CHARS_AS_RESULT} of ${page.content.length} characters are shown.`] : []),
      ].join(" ");
      return {
        data: { ...common, durationMs: Date.now() - started, result: `${header}\n\n${shown.text}`, truncated: page.truncated || page.htmlCut === true || shown.cut },
      };
    },

    mapToolResultToToolResultBlockParam(output, toolUseID): ToolResultBlockParam {
      return { type: "tool_result", tool_use_id: toolUseID, content: output.result };
    },
  });
  return tool;
}

export const WebFetchTool = createWebFetchTool();
