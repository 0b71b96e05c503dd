import os from "node:os";
import path from "node:path";

/** toolgate's data home: `TOOLGATE_HOME`, else `~/.toolgate`. */
export function getToolgateHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.TOOLGATE_HOME;
  if (configured && configured.trim()) return path.resolve(configured);
  return path.join(os.homedir(), ".toolgate");
}
