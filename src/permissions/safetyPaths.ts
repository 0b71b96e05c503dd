/** The safety path names live in core (the workspace snapshots skip the sandbox's placeholders for them too). */
export { SAFETY_DIRECTORY_NAMES, SAFETY_FILE_NAMES } from "../core/safetyPaths.js";
