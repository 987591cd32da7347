// `node packages/hooks/src/main.ts <webhook flags>`: the hook runner as its own process.
import { runHooksCommand } from "./cli/command.ts";

process.exitCode = await runHooksCommand(process.argv.slice(2));
