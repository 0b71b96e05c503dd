import { describe, expect, it } from "vitest";
import { matchCommandPattern, matchDomainRule, domainRuleContentForUrl, commandRulePrefix } from "../../src/permissions/index.js";

describe("matchCommandPattern", () => {
  it("matches exact commands only exactly", () => {
    expect(matchCommandPattern("npm test", "npm test")).toBe(true);
    expect(matchCommandPattern("npm test", "  npm test  ")).toBe(true);
    expect(matchCommandPattern("npm test", "npm test --watch")).toBe(false);
    expect(matchCommandPattern("npm test", "npm tes")).toBe(false);
  });

  it("matches prefix rules at a word boundary", () => {
    expect(matchCommandPattern("npm run:*", "npm run build")).toBe(true);
    expect(matchCommandPattern("npm run:*", "npm run")).toBe(true);
    expect(matchCommandPattern("npm run:*", "npm runner")).toBe(false);
    expect(matchCommandPattern("npm run:*", "npx npm run build")).toBe(false);
    expect(commandRulePrefix("git diff:*")).toBe("git diff");
    expect(commandRulePrefix("git diff")).toBeUndefined();
  });

  it("matches wildcards anywhere, with an optional trailing ` *`", () => {
    expect(matchCommandPattern("git *", "git status")).toBe(true);
    expect(matchCommandPattern("git *", "git")).toBe(true);
    expect(matchCommandPattern("git *", "gitk")).toBe(false);
    expect(matchCommandPattern("git * --force", "git push origin --force")).toBe(true);
    expect(matchCommandPattern("git * --force", "git push origin")).toBe(false);
    expect(matchCommandPattern("ls*", "lsof")).toBe(true);
    expect(matchCommandPattern("echo \\*", "echo *")).toBe(true);
    expect(matchCommandPattern("echo \\*", "echo hi")).toBe(false);
    expect(matchCommandPattern("rm -rf *", "rm -rf /tmp/x")).toBe(true);
  });

  it("treats regex characters literally", () => {
    expect(matchCommandPattern("cat a.b", "cat aXb")).toBe(false);
    expect(matchCommandPattern("grep (x|y) *", "grep (x|y) file")).toBe(true);
  });
});

describe("domain rules", () => {
  it("matches the exact host, case-insensitively", () => {
    expect(matchDomainRule("domain:example.com", "https://Example.COM/path")).toBe(true);
    expect(matchDomainRule("domain:example.com", "https://docs.example.com/")).toBe(false);
    expect(matchDomainRule("domain:example.com", "example.com")).toBe(true);
    expect(matchDomainRule("domain:example.com", "https://example.com.evil.net/")).toBe(false);
  });

  it("matches subdomains with *.", () => {
    expect(matchDomainRule("domain:*.example.com", "https://docs.example.com/")).toBe(true);
    expect(matchDomainRule("domain:*.example.com", "https://example.com/")).toBe(false);
    expect(matchDomainRule("domain:*.example.com", "https://badexample.com/")).toBe(false);
  });

  it("ignores content that is not a domain rule and bad URLs", () => {
    expect(matchDomainRule("example.com", "https://example.com")).toBe(false);
    expect(matchDomainRule("domain:example.com", "not a url://")).toBe(false);
    expect(domainRuleContentForUrl("https://Docs.Example.com:8080/x")).toBe("domain:docs.example.com");
  });
});
