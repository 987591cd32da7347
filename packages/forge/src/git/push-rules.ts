import { accessSync, constants } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// How protected branches are enforced on a push, over HTTP and SSH alike: receive-pack runs with
// the forge's one update hook (git/hooks/update, from the source tree; no repository holds a hook
// of its own) and with the pusher's rights under each rule in its environment. git then refuses
// the refs the hook declines and applies the rest, and reports each to the client as it always does.

/** What a rule lets the pusher do, decided by the forge (services/branch-protection.ts). */
export interface PushRule {
  /** The rule's branch name or glob. */
  rule: string;
  push: boolean;
  force: boolean;
}

const HOOKS = join(dirname(fileURLToPath(import.meta.url)), "hooks");
let hookChecked = false;

// git skips a hook it cannot execute (a copy that lost its mode bits) and lets every ref through:
// such a push must fail instead.
function hooksPath(): string {
  if (!hookChecked) {
    accessSync(join(HOOKS, "update"), constants.X_OK);
    hookChecked = true;
  }
  return HOOKS;
}

/** The environment receive-pack needs to apply `rules` (in the order they are tried); none without rules. */
export function pushRulesEnvironment(rules: readonly PushRule[]): Record<string, string> {
  if (rules.length === 0) return {};
  return {
    // Configuration given this way outranks the repository's own, so no repository can unset it.
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.hooksPath",
    GIT_CONFIG_VALUE_0: hooksPath(),
    ANVIL_PUSH_RULES: JSON.stringify(rules),
    // The hook runs on the forge's own Node (it loads TypeScript), whatever `node` PATH finds first.
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
  };
}
