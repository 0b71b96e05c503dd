export const WEB_SEARCH_TOOL_NAME = "WebSearch";

export const WEB_SEARCH_DESCRIPTION = "Search the web; returns result titles, URLs and snippets.";

export function webSearchPrompt(): string {
  return `Searches the web and returns the results: each with its title, URL and a snippet when one is available.

- Use it for information newer than your training data or that you cannot find in the project: current documentation, release notes, error messages, recent events.
- Write the query as you would type it into a search engine; include version numbers and exact error text when they matter.
- "allowed_domains" keeps only results from those domains (and their subdomains), e.g. ["docs.python.org"]; "blocked_domains" drops results from them. Use one or the other, not both.
- The results are pointers: to read a page, call WebFetch with its URL. When you use what you found in your answer, name the sources (their URLs).
- The query is sent to a third-party search service, so it needs permission unless a WebSearch rule allows it; never put secrets or private code in a query.`;
}
