/**
 * Content matchers for rules: commands (`Bash(...)`) and web domains (`WebFetch(domain:host)`).
 * The command matcher judges ONE simple command; splitting a command line into its parts is the
 * Bash tool's job (on the real AST), so `git *` never sees `git status && rm -rf /` as one string.
 */
import { domainToASCII } from "node:url";

const compiled = new Map<string, (command: string) => boolean>();

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The part of a `prefix:*` rule before `:*`, or undefined when the rule is not in that form. */
export function commandRulePrefix(ruleContent: string): string | undefined {
  const trimmed = ruleContent.trim();
  if (!trimmed.endsWith(":*")) return undefined;
  const prefix = trimmed.slice(0, -2).trim();
  return prefix && !hasUnescapedStar(prefix) ? prefix : undefined;
}

function hasUnescapedStar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "*") return true;
  }
  return false;
}

function compileCommandPattern(ruleContent: string): (command: string) => boolean {
  const pattern = ruleContent.trim();
  const prefix = commandRulePrefix(pattern);
  if (prefix !== undefined) {
    // a word boundary: `npm run:*` matches `npm run build` and `npm run`, not `npm runner`
    return (command) => command === prefix || (command.startsWith(prefix) && /\s/.test(command[prefix.length]));
  }
  if (!hasUnescapedStar(pattern)) {
    const exact = pattern.replace(/\\\*/g, "*");
    return (command) => command === exact;
  }
  // a trailing ` *` is optional: `git *` also matches a bare `git`, but not `gitk`
  const optionalTail = pattern.endsWith(" *");
  const body = optionalTail ? pattern.slice(0, -2) : pattern;
  let source = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\" && body[i + 1] === "*") {
      source += "\\*";
      i++;
    } else {
      source += ch === "*" ? "[\\s\\S]*" : escapeRegExp(ch);
    }
  }
  if (optionalTail) source += "(?:\\s[\\s\\S]*)?";
  const regex = new RegExp(`^${source}$`);
  return (command) => regex.test(command);
}

/**
 * Command rule content matching, on one simple command (surrounding whitespace ignored):
 * exact `npm test`; prefix `npm run:*` (the command is the prefix or the prefix then whitespace);
 * wildcard `git *`, where `*` is any text (`\*` a literal star) and a trailing ` *` is optional.
 */
export function matchCommandPattern(ruleContent: string, command: string): boolean {
  let matcher = compiled.get(ruleContent);
  if (!matcher) {
    matcher = compileCommandPattern(ruleContent);
    if (compiled.size > 5000) compiled.clear();
    compiled.set(ruleContent, matcher);
  }
  return matcher(command.trim());
}

/** A host name as URLs carry it: lower case, punycode for IDN (`bücher.de` → `xn--bcher-kva.de`), no trailing dot. */
function normalizeHost(host: string): string {
  const lower = host.trim().toLowerCase().replace(/\.$/, "");
  return domainToASCII(lower) || lower;
}

/** `https://Docs.Example.com./x` → `docs.example.com`; undefined for what is not a URL with a host. */
export function hostOfUrl(url: string): string | undefined {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
    return host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `domain:example.com` matches that host exactly; `domain:*.example.com` matches its subdomains
 * (not the apex). Content that is not a `domain:` rule never matches.
 */
export function matchDomainRule(ruleContent: string, urlOrHost: string): boolean {
  const trimmed = ruleContent.trim();
  if (!trimmed.toLowerCase().startsWith("domain:")) return false;
  const raw = trimmed.slice("domain:".length).trim();
  if (!raw) return false;
  const wanted = raw.startsWith("*.") ? `*.${normalizeHost(raw.slice(2))}` : normalizeHost(raw);
  const host = urlOrHost.includes("://") ? hostOfUrl(urlOrHost) : normalizeHost(urlOrHost);
  if (!host) return false;
  if (wanted.startsWith("*.")) {
    const base = wanted.slice(2);
    return host.endsWith(`.${base}`) && host.length > base.length + 1;
  }
  return host === wanted;
}

/** The rule content that would allow this URL: `domain:<host>`. */
export function domainRuleContentForUrl(url: string): string | undefined {
  const host = hostOfUrl(url);
  return host ? `domain:${host}` : undefined;
}
