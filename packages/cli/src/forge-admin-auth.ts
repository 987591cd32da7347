import { type Command, Option } from "commander";
import { addSettingOptions, booleanFlag, type SettingFlag, wholeNumber } from "./options.ts";
import type { Settings } from "./settings.ts";

// `anvil forge admin auth …` with the flags of `gitea admin auth …`, so provisioning scripts
// written for Gitea need only the command name changed. Like Gitea's, add and update print
// nothing when they succeed.

type Load = (options: Record<string, unknown>, flags: SettingFlag[]) => Settings;
type WithDatabase = <T>(
  settings: Settings,
  work: (database: Awaited<ReturnType<typeof import("@anvil/forge/admin").openForgeDatabase>>) => Promise<T>,
) => Promise<T>;

const TEXT_FLAGS: [flag: string, field: string, description: string][] = [
  ["name", "name", "authentication name"],
  ["security-protocol", "security_protocol", "security protocol name: Unencrypted, LDAPS or StartTLS"],
  ["host", "host", "the address where the LDAP server can be reached"],
  ["user-search-base", "user_search_base", "the LDAP base at which user accounts will be searched for"],
  [
    "user-filter",
    "user_filter",
    "an LDAP filter declaring how to find the user record that is attempting to authenticate",
  ],
  [
    "admin-filter",
    "admin_filter",
    "an LDAP filter specifying if a user should be given administrator privileges",
  ],
  [
    "restricted-filter",
    "restricted_filter",
    "an LDAP filter specifying if a user should be given restricted status",
  ],
  [
    "username-attribute",
    "username_attribute",
    "the attribute of the user's LDAP record containing the user name",
  ],
  [
    "firstname-attribute",
    "firstname_attribute",
    "the attribute of the user's LDAP record containing the first name",
  ],
  [
    "surname-attribute",
    "surname_attribute",
    "the attribute of the user's LDAP record containing the surname",
  ],
  [
    "email-attribute",
    "email_attribute",
    "the attribute of the user's LDAP record containing the e-mail address",
  ],
  [
    "public-ssh-key-attribute",
    "public_ssh_key_attribute",
    "the attribute of the user's LDAP record containing SSH public keys",
  ],
  ["avatar-attribute", "avatar_attribute", "accepted for Gitea's scripts; anvil keeps no avatars"],
];
const FLAG_FLAGS: [flag: string, field: string, description: string][] = [
  ["skip-tls-verify", "skip_tls_verify", "disable TLS verification"],
  ["allow-deactivate-all", "allow_deactivate_all", "allow an empty search result to deactivate all users"],
  ["skip-local-2fa", "skip_local_2fa", "accepted for Gitea's scripts; anvil has no two-factor sign-in"],
];
const BIND_DN_TEXT: typeof TEXT_FLAGS = [
  ["bind-dn", "bind_dn", "the DN to bind to the LDAP server with when searching for the user"],
  ["bind-password", "bind_password", "the password for the bind DN, if any"],
];
const BIND_DN_FLAGS: typeof FLAG_FLAGS = [
  ["attributes-in-bind", "attributes_in_bind", "fetch attributes in bind DN context"],
];
const SIMPLE_TEXT: typeof TEXT_FLAGS = [["user-dn", "user_dn", "the user's DN"]];

/** What add-ldap and add-ldap-simple insist on, in Gitea's words. */
const REQUIRED = {
  ldap: ["name", "security-protocol", "host", "port", "user-search-base", "user-filter", "email-attribute"],
  ldap_simple: ["name", "security-protocol", "host", "port", "user-dn", "user-filter", "email-attribute"],
} as const;

function attributeOf(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function sourceOptions(command: Command, type: "ldap" | "ldap_simple"): Command {
  const texts = [...TEXT_FLAGS, ...(type === "ldap" ? BIND_DN_TEXT : SIMPLE_TEXT)];
  for (const [flag, , description] of texts) command.option(`--${flag} <value>`, description);
  for (const [flag, , description] of [...FLAG_FLAGS, ...(type === "ldap" ? BIND_DN_FLAGS : [])])
    command.addOption(new Option(`--${flag} [bool]`, description).argParser(booleanFlag));
  command.addOption(
    new Option("--not-active [bool]", "deactivate the authentication source").argParser(booleanFlag),
  );
  command.addOption(
    new Option("--port <port>", "the port to use when connecting to the LDAP server").argParser(wholeNumber),
  );
  command.addOption(
    new Option(
      "--timeout <seconds>",
      "seconds a sign-in may wait for the server (anvil's; default 5)",
    ).argParser(wholeNumber),
  );
  if (type === "ldap") {
    command.addOption(
      new Option("--synchronize-users [bool]", "enable user synchronization").argParser(booleanFlag),
    );
    command.addOption(new Option("--page-size <n>", "search page size").argParser(wholeNumber));
  }
  return command;
}

/** The options given, as the API's fields; flags not given are absent. */
function sourceInput(options: Record<string, unknown>, type: "ldap" | "ldap_simple") {
  const input: Record<string, unknown> = {};
  const texts = [...TEXT_FLAGS, ...(type === "ldap" ? BIND_DN_TEXT : SIMPLE_TEXT)];
  const flags = [...FLAG_FLAGS, ...(type === "ldap" ? BIND_DN_FLAGS : [])];
  for (const [flag, field] of [...texts, ...flags]) {
    const value = options[attributeOf(flag)];
    if (value !== undefined) input[field] = value;
  }
  if (options.notActive !== undefined) input.is_active = options.notActive !== true;
  if (options.synchronizeUsers !== undefined) input.is_sync_enabled = options.synchronizeUsers;
  if (options.port !== undefined) input.port = options.port;
  if (options.pageSize !== undefined) input.page_size = options.pageSize;
  if (options.timeout !== undefined) input.timeout = options.timeout;
  return input;
}

function checkRequired(options: Record<string, unknown>, type: "ldap" | "ldap_simple"): void {
  for (const flag of REQUIRED[type])
    if (options[attributeOf(flag)] === undefined) throw new Error(`${flag} is not set`);
}

export function addForgeAuthCommands(
  admin: Command,
  load: Load,
  withDatabase: WithDatabase,
  flags: SettingFlag[],
): void {
  const auth = admin.command("auth").description("manage authentication sources");
  const command = (name: string, description: string) =>
    addSettingOptions(auth.command(name).description(description), flags);

  for (const [name, type, description] of [
    ["ldap", "ldap", "LDAP (via Bind DN)"],
    ["ldap-simple", "ldap_simple", "LDAP (simple auth)"],
  ] as const) {
    sourceOptions(command(`add-${name}`, `add a new ${description} authentication source`), type).action(
      async (options: Record<string, unknown>) => {
        checkRequired(options, type);
        const { adminAddAuthSource } = await import("@anvil/forge/admin");
        await withDatabase(load(options, flags), (database) =>
          adminAddAuthSource(database, { type, ...sourceInput(options, type) }),
        );
      },
    );
    sourceOptions(command(`update-${name}`, `update an existing ${description} authentication source`), type)
      .addOption(new Option("--id <id>", "ID of authentication source").argParser(wholeNumber))
      .action(async (options: Record<string, unknown>) => {
        if (options.id === undefined) throw new Error("id is not set");
        const { adminUpdateAuthSource } = await import("@anvil/forge/admin");
        await withDatabase(load(options, flags), (database) =>
          adminUpdateAuthSource(database, options.id as number, type, sourceInput(options, type)),
        );
      });
  }

  command("list", "list authentication sources").action(async (options: Record<string, unknown>) => {
    const { adminListAuthSources, SOURCE_TYPES } = await import("@anvil/forge/admin");
    const { readBool } = await import("@anvil/core");
    const rows = await withDatabase(load(options, flags), (database) => adminListAuthSources(database));
    const lines = [["ID", "Name", "Type", "Enabled"]];
    for (const row of rows) {
      const type =
        row.type === SOURCE_TYPES.ldap_simple.number ? SOURCE_TYPES.ldap_simple : SOURCE_TYPES.ldap;
      lines.push([String(row.id), row.name, type.name, String(readBool(row.is_active))]);
    }
    process.stdout.write(`${lines.map((line) => line.join("\t")).join("\n")}\n`);
  });

  command("delete", "delete an authentication source no user belongs to")
    .addOption(new Option("--id <id>", "ID of authentication source").argParser(wholeNumber))
    .action(async (options: Record<string, unknown>) => {
      if (options.id === undefined) throw new Error("--id flag is missing");
      const { adminDeleteAuthSource } = await import("@anvil/forge/admin");
      await withDatabase(load(options, flags), (database) =>
        adminDeleteAuthSource(database, options.id as number),
      );
    });

  command(
    "sync",
    "synchronize users with their directories (every source with synchronization enabled, or --id)",
  )
    .addOption(new Option("--id <id>", "ID of authentication source").argParser(wholeNumber))
    .action(async (options: Record<string, unknown>) => {
      const { adminSyncAuthSources } = await import("@anvil/forge/admin");
      const reports = await withDatabase(load(options, flags), (database) =>
        adminSyncAuthSources(database, options.id as number | undefined),
      );
      for (const report of reports) {
        const names = (list: string[]) => (list.length === 0 ? "" : ` (${list.join(", ")})`);
        process.stdout.write(
          `${report.source}: ${report.created.length} created${names(report.created)}, ` +
            `${report.updated.length} updated${names(report.updated)}, ` +
            `${report.deactivated.length} deactivated${names(report.deactivated)}, ` +
            `${report.keysAdded} SSH keys added, ${report.keysRemoved} removed` +
            `${report.skipped.length === 0 ? "" : `, ${report.skipped.length} skipped${names(report.skipped)}`}\n`,
        );
      }
    });
}
