import { createLogger } from "@anvil/core";
import type { Command } from "commander";
import { addSettingOptions, type SettingFlag } from "./options.ts";
import { progressOn } from "./progress.ts";
import { databaseUrl, type Settings } from "./settings.ts";

// `anvil inventory admin user create` and `… token create`: the first superuser and a token for
// scripts, before anyone can call the API; `anvil inventory import FILE`: a CSV import too large
// to wait on over HTTP. They work on the server's database whether it runs or not.

/** Rows between the plain progress lines written when standard error is not a terminal. */
const PROGRESS_LINE_EVERY = 1000;

type Load = (options: Record<string, unknown>, flags: SettingFlag[]) => Settings;
type InventoryAdmin = typeof import("@anvil/inventory/admin");

const flags: SettingFlag[] = [{ key: "data-dir" }, { key: "inventory.database", flag: "--database" }];

async function withDatabase<T>(
  settings: Settings,
  work: (
    admin: InventoryAdmin,
    database: Awaited<ReturnType<InventoryAdmin["openInventoryDatabase"]>>,
  ) => Promise<T>,
): Promise<T> {
  const admin = await import("@anvil/inventory/admin");
  const database = await admin.openInventoryDatabase(databaseUrl(settings, "inventory"));
  try {
    return await work(admin, database);
  } finally {
    await database.close();
  }
}

export function addInventoryAdminCommands(inventory: Command, load: Load): void {
  addSettingOptions(
    inventory
      .command("import")
      .description("import a CSV file as POST /imports and /imports/process/{id} would, showing progress")
      .argument(
        "<file>",
        "the CSV file (headers as the web importer's: Asset Tag, Item Name, Model Name, …)",
      ),
    flags,
  )
    .option(
      "--type <type>",
      "asset, accessory, consumable, component, license, user, location or assetmodel",
      "asset",
    )
    .option(
      "--update",
      "update the records rows name (by asset tag, username or name) instead of refusing them",
    )
    .option("--username <name>", "the superuser the import acts as (default: the first superuser)")
    .action(async (file: string, options: Record<string, unknown>) => {
      const progress = progressOn(process.stderr, PROGRESS_LINE_EVERY);
      const started = performance.now();
      const settings = load(options, flags);
      const result = await withDatabase(settings, async (admin, database) => {
        try {
          return await admin.adminImport(database, {
            file,
            dataDir: settings["data-dir"],
            type: options.type as string,
            update: options.update === true,
            username: options.username as string | undefined,
            logger: createLogger({ level: "warn", pretty: false, destination: process.stderr }),
            progress: (counts, total) =>
              progress.update(counts.processed, total, `rows, ${counts.failed} failed`),
          });
        } finally {
          progress.end();
        }
      });
      const { counts } = result;
      const seconds = (performance.now() - started) / 1000;
      const lines = [
        `Import ${result.id}: ${counts.processed} of ${result.total} rows in ${seconds.toFixed(1)} s: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.failed} failed.`,
        ...result.errors.map(
          (error) =>
            `  row ${error.row}${error.name === null ? "" : ` (${error.name})`}: ${Object.entries(
              error.messages,
            )
              .map(([field, message]) => `${field}: ${message}`)
              .join("; ")}`,
        ),
      ];
      if (counts.failed > result.errors.length)
        lines.push(`  … and ${counts.failed - result.errors.length} more failed rows, not listed.`);
      process.stdout.write(`${lines.join("\n")}\n`);
      // Scripts see a partial import: the rows that held are kept, as the API's importer keeps them.
      if (counts.failed > 0) process.exitCode = 1;
    });

  const admin = inventory.command("admin").description("administer the inventory");
  const command = (group: Command, name: string, description: string) =>
    addSettingOptions(group.command(name).description(description), flags);

  const user = admin.command("user").description("manage users");
  command(user, "create", "create a user who can sign in and hold API tokens")
    .requiredOption("--username <name>", "user name")
    .requiredOption("--password <password>", "password (at least 8 characters)")
    .requiredOption("--email <address>", "e-mail address")
    .option("--superuser", "give the user every permission")
    .action(async (options: Record<string, unknown>) => {
      const created = await withDatabase(load(options, flags), (admin, database) =>
        admin.adminCreateUser(database, {
          username: options.username as string,
          password: options.password as string,
          email: options.email as string,
          superuser: options.superuser === true,
        }),
      );
      process.stdout.write(`User '${created.username}' (id ${created.id}) has been created.\n`);
    });

  const token = admin.command("token").description("manage personal access tokens");
  command(token, "create", "create a personal access token and print it")
    .requiredOption("--username <name>", "the token's user")
    .requiredOption("--name <name>", "token name")
    .option("--read-only", "the token may only read (GET and HEAD)")
    .option(
      "--scope <permissions>",
      "limit the token to these of the user's permissions, comma-separated (assets.view,assets.checkout; assets.* for a family)",
    )
    .action(async (options: Record<string, unknown>) => {
      const secret = await withDatabase(load(options, flags), (admin, database) =>
        admin.adminCreateToken(database, {
          username: options.username as string,
          name: options.name as string,
          readOnly: options.readOnly === true,
          scopes: options.scope as string | undefined,
        }),
      );
      // The token alone on the last line, for scripts: TOKEN=$(anvil … | tail -n1).
      process.stdout.write(
        `Personal access token '${options.name as string}' created; it is shown only once:\n${secret}\n`,
      );
    });
}
