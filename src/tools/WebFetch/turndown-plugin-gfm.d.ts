// turndown-plugin-gfm ships no types; only the plugin WebFetch uses is declared.
declare module "turndown-plugin-gfm" {
  import type TurndownService from "turndown";
  export const gfm: TurndownService.Plugin;
}
