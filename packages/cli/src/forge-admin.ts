import { type Command, Option } from "commander";
import { addForgeAuthCommands } from "./forge-admin-auth.ts";
import { addSettingOptions, booleanFlag, type SettingFlag } from "./options.ts";
import { databaseUrl, type Settings } from "./settings.ts";

// `anvil forge admin user …` (and `auth …`, in forge-admin-auth.ts), with gitea's flags and messages, so scripts written for
// `gitea admin user …` need only the command name changed.

type Load = (options: Record<string, unknown>, flags: SettingFlag[]) => Settings;

const flags: SettingFlag[] = [{ key: "data-dir" }, { key: "forge.database", flag: "--database" }];

async function withDatabase<T>(
  settings: Settings,
  work: (database: Awaited<ReturnType<typeof import("@anvil/forge/admin").openForgeDatabase>>) => Promise<T>,
): Promise<T> {
  const { openForgeDatabase } = await import("@anvil/forge/admin");
  const database = await openForgeDatabase(databaseUrl(settings, "forge"));
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

function scopesOf(text: string): string[] {
  return text.split(",").map((scope) => scope.trim());
}

export function addForgeAdminCommands(forge: Command, load: Load): void {
  const admin = forge.command("admin").description("administer the forge");
  addForgeAuthCommands(admin, load, withDatabase, flags);
  const user = admin.command("user").description("manage users");
  const command = (name: string, description: string) =>
    addSettingOptions(user.command(name).description(description), flags);

  command("create", "create a user")
    .requiredOption("--username <name>", "user name")
    .requiredOption("--email <address>", "e-mail address")
    .option("--password <password>", "password")
    .option("--random-password", "generate a random password and print it")
    .option("--random-password-length <n>", "length of the random password", "12")
    .option("--admin", "make the user a site admin")
    .option("--restricted", "make the user restricted")
    .option("--fullname <name>", "full name")
    .addOption(
      new Option(
        "--must-change-password [bool]",
        "ask for a new password at first sign-in (default true, false for the first user)",
      ).argParser(booleanFlag),
    )
    .option("--access-token", "also create an access token and print it")
    .option("--access-token-name <name>", "name of that token", "gitea-admin")
    .option("--access-token-scopes <scopes>", "its scopes, comma-separated", "all")
    .action(async (options: Record<string, unknown>) => {
      if (options.password === undefined && !options.randomPassword)
        throw new Error("one of --password or --random-password is required");
      const { adminCreateUser } = await import("@anvil/forge/admin");
      const result = await withDatabase(load(options, flags), (database) =>
        adminCreateUser(database, {
          username: options.username as string,
          email: options.email as string,
          password: options.password as string | undefined,
          randomPasswordLength: options.randomPassword ? Number(options.randomPasswordLength) : undefined,
          admin: options.admin === true,
          restricted: options.restricted === true,
          fullName: options.fullname as string | undefined,
          mustChangePassword:
            options.mustChangePassword === true ? true : (options.mustChangePassword as boolean | undefined),
          accessToken: options.accessToken
            ? {
                name: options.accessTokenName as string,
                scopes: scopesOf(options.accessTokenScopes as string),
              }
            : undefined,
        }),
      );
      if (result.generatedPassword)
        process.stdout.write(`generated random password is '${result.generatedPassword}'\n`);
      process.stdout.write(`New user '${result.user.name}' has been successfully created!\n`);
      if (result.token) process.stdout.write(`Access token was successfully created... ${result.token}\n`);
    });

  command("generate-access-token", "create an access token for a user")
    .requiredOption("-u, --username <name>", "user name")
    .option("-t, --token-name <name>", "token name", "gitea-admin")
    .option("--scopes <scopes>", "comma-separated scopes", "all")
    .option("--raw", "print the token alone")
    .action(async (options: Record<string, unknown>) => {
      const { adminGenerateToken } = await import("@anvil/forge/admin");
      const token = await withDatabase(load(options, flags), (database) =>
        adminGenerateToken(database, options.username as string, {
          name: options.tokenName as string,
          scopes: scopesOf(options.scopes as string),
        }),
      );
      process.stdout.write(options.raw ? `${token}\n` : `Access token was successfully created: ${token}\n`);
    });

  command("list", "list users")
    .option("--admin", "site admins only")
    .action(async (options: Record<string, unknown>) => {
      const { adminListUsers } = await import("@anvil/forge/admin");
      const { readBool } = await import("@anvil/core");
      const rows = await withDatabase(load(options, flags), (database) =>
        adminListUsers(database, options.admin === true),
      );
      const lines = [["ID", "Username", "Email", "IsActive", "IsAdmin", "2FA"]];
      for (const row of rows)
        lines.push([
          String(row.id),
          row.name,
          row.email,
          String(readBool(row.is_active)),
          String(readBool(row.is_admin)),
          "false",
        ]);
      process.stdout.write(`${lines.map((line) => line.join("\t")).join("\n")}\n`);
    });

  command("delete", "delete a user")
    .option("--id <id>", "user id")
    .option("-u, --username <name>", "user name")
    .option("-e, --email <address>", "e-mail address")
    .action(async (options: Record<string, unknown>) => {
      const { adminDeleteUser } = await import("@anvil/forge/admin");
      await withDatabase(load(options, flags), (database) =>
        adminDeleteUser(database, {
          id: options.id === undefined ? undefined : Number(options.id),
          username: options.username as string | undefined,
          email: options.email as string | undefined,
        }),
      );
    });

  command("change-password", "set a user's password")
    .requiredOption("-u, --username <name>", "user name")
    .requiredOption("-p, --password <password>", "new password")
    .addOption(
      new Option(
        "--must-change-password [bool]",
        "ask for a new password at next sign-in (default true)",
      ).argParser(booleanFlag),
    )
    .action(async (options: Record<string, unknown>) => {
      const { adminChangePassword } = await import("@anvil/forge/admin");
      await withDatabase(load(options, flags), (database) =>
        adminChangePassword(
          database,
          options.username as string,
          options.password as string,
          options.mustChangePassword !== false,
        ),
      );
      process.stdout.write(`${options.username as string}'s password has been successfully updated!\n`);
    });
}
