import { readFileSync } from "node:fs";
import { Command } from "commander";
import { addForgeAdminCommands } from "./forge-admin.ts";
import { addInventoryAdminCommands } from "./inventory-admin.ts";
import { addSettingOptions, type SettingFlag, settingFlags, settingKeys } from "./options.ts";
import { databaseUrl, loadSettings, type SettingKey, settingsSpec } from "./settings.ts";

// Services are imported when a command needs them, so `anvil hooks` and `--help` start fast.

const { version } = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const SERVICES = ["forge", "inventory"] as const;

const common: SettingFlag[] = [
  { key: "data-dir" },
  { key: "host" },
  { key: "log-level" },
  { key: "trust-proxy" },
  { key: "shutdown-grace" },
];

/** A service's own settings, in the spec's order; `forge serve` offers them without the prefix (--port). */
function serviceFlags(service: "forge" | "inventory", short: boolean): SettingFlag[] {
  const prefix = `${service}.`;
  return (Object.keys(settingsSpec) as SettingKey[])
    .filter((key) => key.startsWith(prefix))
    .map((key) => ({ key, flag: short ? `--${key.slice(prefix.length)}` : undefined }));
}

function load(options: Record<string, unknown>, flags: SettingFlag[]) {
  return loadSettings(settingFlags(options, flags), settingKeys(flags));
}

function fail(error: unknown): never {
  process.stderr.write(`anvil: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

function buildProgram(): Command {
  const program = new Command("anvil")
    .description(
      "Self-hosted forge (Gitea API), inventory (Snipe-IT API) and hook runner (webhook-compatible)",
    )
    .version(version, "-V, --version")
    .showHelpAfterError();

  const allFlags: SettingFlag[] = [
    ...common,
    ...serviceFlags("forge", false),
    ...serviceFlags("inventory", false),
    { key: "hooks.port" },
    { key: "hooks.files" },
    { key: "hooks.urlprefix" },
    { key: "hooks.hotreload" },
  ];
  addSettingOptions(
    program.command("serve").description("start forge, inventory and hooks together"),
    allFlags,
  ).action(async (options: Record<string, unknown>) => {
    const settings = load(options, allFlags);
    const { serve } = await import("./serve.ts");
    await serve(["forge", "inventory", "hooks"], settings);
  });

  for (const name of ["forge", "inventory"] as const) {
    const group = program.command(name).description(`the ${name} service`);
    const flags = [...common, ...serviceFlags(name, true)];
    addSettingOptions(group.command("serve").description(`start the ${name} alone`), flags).action(
      async (options: Record<string, unknown>) => {
        const settings = load(options, flags);
        const { serve } = await import("./serve.ts");
        await serve([name], settings);
      },
    );
    if (name === "forge") addForgeAdminCommands(group, load);
    else addInventoryAdminCommands(group, load);
  }

  // Documented here for --help; the arguments are webhook's own flags, parsed by the hook runner.
  program
    .command("hooks")
    .description(
      "run the hook runner alone, with webhook's flags (anvil hooks -hooks hooks.json -verbose; anvil hooks -h lists them)",
    )
    .helpOption(false)
    .allowUnknownOption()
    .argument("[flags...]");

  const migrateFlags: SettingFlag[] = [
    { key: "data-dir" },
    { key: "forge.database" },
    { key: "inventory.database" },
  ];
  addSettingOptions(
    program
      .command("migrate")
      .description("apply pending database migrations and exit")
      .argument("[service]", "forge or inventory (default: both)"),
    migrateFlags,
  ).action(async (service: string | undefined, options: Record<string, unknown>) => {
    const services = service === undefined ? SERVICES : SERVICES.filter((name) => name === service);
    if (services.length === 0) fail(`unknown service "${service}"; use forge or inventory`);
    const settings = load(options, migrateFlags);
    const { migrateService } = await import("./migrate.ts");
    for (const name of services) {
      const applied = await migrateService(name, databaseUrl(settings, name));
      process.stdout.write(
        `${name}: ${applied.length === 0 ? "up to date" : `applied ${applied.join(", ")}`}\n`,
      );
    }
  });
  return program;
}

const argv = process.argv.slice(2);
if (argv[0] === "hooks") {
  // webhook's flag syntax (-hooks x, -port=9000) is not commander's, so the hook runner parses it.
  const { runHooksCommand } = await import("@anvil/hooks");
  process.exitCode = await runHooksCommand(argv.slice(1));
} else {
  await buildProgram().parseAsync(process.argv).catch(fail);
}
