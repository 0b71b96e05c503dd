// Loaded with `node --import`: records the modules the process loads (see loadTraceHooks.mjs).
import { register } from "node:module";

register("./loadTraceHooks.mjs", import.meta.url);
