/**
 * Everything a tool call does not need, behind one dynamic import: the other commands, and the
 * schema check (zod and the catalog). One module, so the bundler makes one chunk for it and a
 * call's start loads a few files rather than a chunk per command.
 */
export { checkCall } from "../flags.js";
export { runHelp, runList, USAGE } from "./catalog-views.js";
export { runComplete, runCompletion } from "./completion.js";
export { runConfig } from "./config-cmd.js";
export { runDoctor } from "./doctor.js";
export { runSkill } from "./skill.js";
export { runSnapshot } from "./snapshot.js";
export { runTask } from "./task.js";
