import type { Command } from "commander";
import { addSettingOptions, type SettingFlag } from "./options.ts";
import { databaseUrl, type Settings } from "./settings.ts";

// `anvil inventory admin user create` and `… token create`: the first superuser and a token for
// scripts, before anyone can call the API. They work on the server's database whether it runs or not.

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
