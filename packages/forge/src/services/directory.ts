import net from "node:net";
import tls from "node:tls";
import { Client, type Entry, Filter, InvalidCredentialsError, SizeLimitExceededError } from "ldapts";

// Talking to an LDAP directory as Gitea's LDAP sources do: "via bind DN" binds as a service
// account, finds the user with the user filter under the search base and then binds as the entry
// found with the password given; "simple auth" binds straight as the DN the pattern makes and
// then reads the entry with the user filter. A login name only ever reaches the directory escaped
// (RFC 4515 in filters, RFC 4514 in DNs), and every conversation has one deadline, after which
// its sockets are destroyed, so a directory that hangs costs a sign-in no more than its time-out.

export const SECURITY_PROTOCOLS = ["Unencrypted", "LDAPS", "StartTLS"] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

/** What a conversation with the directory needs, the bind password in the clear. */
export interface DirectorySettings {
  /** `ldap`: via bind DN; `ldap_simple`: simple auth. */
  kind: "ldap" | "ldap_simple";
  host: string;
  port: number;
  security_protocol: SecurityProtocol;
  skip_tls_verify: boolean;
  bind_dn: string;
  bind_password: string;
  user_search_base: string;
  user_dn: string;
  user_filter: string;
  admin_filter: string;
  restricted_filter: string;
  username_attribute: string;
  firstname_attribute: string;
  surname_attribute: string;
  email_attribute: string;
  public_ssh_key_attribute: string;
  attributes_in_bind: boolean;
  page_size: number;
  /** Seconds a whole conversation may take. */
  timeout: number;
}

/** A user as the directory describes them. */
export interface DirectoryUser {
  dn: string;
  /** The username attribute's value, or the login name when there is no such attribute. */
  username: string;
  fullName: string;
  email: string;
  sshKeys: string[];
  isAdmin: boolean;
  isRestricted: boolean;
}

/** The directory could not be asked: down, slow, refusing the bind DN, or misconfigured. */
export class DirectoryUnavailable extends Error {}

/** RFC 4514: a value that stays one attribute value inside a DN. */
export function escapeDnValue(value: string): string {
  let escaped = value.replace(/[\\,+"<>;=\0]/g, (c) => (c === "\0" ? "\\00" : `\\${c}`));
  if (/^[ #]/.test(escaped)) escaped = `\\${escaped}`;
  if (escaped.endsWith(" ")) escaped = `${escaped.slice(0, -1)}\\ `;
  return escaped;
}

/** A filter or DN pattern with Gitea's placeholder (`%s`, or `%[1]s`) filled in. */
function fill(pattern: string, value: string): string {
  return pattern.replaceAll("%[1]s", value).replaceAll("%s", value);
}

// Directories answer attribute names in their own case (sshPublicKey for sshpublickey).
function valuesOf(entry: Entry, attribute: string): string[] {
  if (attribute === "") return [];
  const wanted = attribute.toLowerCase();
  const key = Object.keys(entry).find((name) => name !== "dn" && name.toLowerCase() === wanted);
  const value = key === undefined ? undefined : entry[key];
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map((v) => v.toString());
}

function first(entry: Entry, attribute: string): string {
  return valuesOf(entry, attribute)[0] ?? "";
}

function attributesOf(settings: DirectorySettings): string[] {
  return [
    settings.username_attribute,
    settings.firstname_attribute,
    settings.surname_attribute,
    settings.email_attribute,
    settings.public_ssh_key_attribute,
  ].filter((name) => name !== "");
}

function userOf(
  settings: DirectorySettings,
  entry: Entry,
  login: string,
  roles: { isAdmin: boolean; isRestricted: boolean },
): DirectoryUser {
  const username = first(entry, settings.username_attribute) || login;
  return {
    dn: entry.dn,
    username,
    fullName:
      `${first(entry, settings.firstname_attribute)} ${first(entry, settings.surname_attribute)}`.trim(),
    email: first(entry, settings.email_attribute),
    sshKeys: valuesOf(entry, settings.public_ssh_key_attribute),
    ...roles,
  };
}

/** One connection's sockets, kept so the deadline can destroy them whatever the client is doing. */
class Conversation {
  readonly client: Client;
  readonly settings: DirectorySettings;
  private readonly sockets: net.Socket[] = [];

  constructor(settings: DirectorySettings) {
    this.settings = settings;
    const host = net.isIPv6(settings.host) ? `[${settings.host}]` : settings.host;
    const scheme = settings.security_protocol === "LDAPS" ? "ldaps" : "ldap";
    const keep = <S extends net.Socket>(socket: S): S => {
      this.sockets.push(socket);
      return socket;
    };
    this.client = new Client({
      url: `${scheme}://${host}:${settings.port}`,
      timeout: settings.timeout * 1000,
      connectTimeout: settings.timeout * 1000,
      // Given at all, TLS options make ldapts speak TLS from the start: for LDAPS only.
      tlsOptions: scheme === "ldaps" ? this.tlsOptions() : undefined,
      createConnection: ((...args: Parameters<typeof net.connect>) =>
        keep(net.connect(...args))) as typeof net.connect,
      createSecureConnection: ((...args: Parameters<typeof tls.connect>) =>
        keep(tls.connect(...args))) as typeof tls.connect,
    });
  }

  tlsOptions(): tls.ConnectionOptions {
    return {
      rejectUnauthorized: !this.settings.skip_tls_verify,
      servername: net.isIP(this.settings.host) === 0 ? this.settings.host : undefined,
    };
  }

  destroy(): void {
    for (const socket of this.sockets) socket.destroy();
  }
}

/**
 * Runs `work` on a new connection; the connection never outlives it. `whole` bounds the whole
 * conversation by the source's time-out (a sign-in); without it only each operation is bounded
 * (a sync, which may page through a large directory).
 */
async function converse<T>(
  settings: DirectorySettings,
  whole: boolean,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const conversation = new Conversation(settings);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    if (!whole) return;
    timer = setTimeout(() => {
      conversation.destroy();
      reject(
        new DirectoryUnavailable(
          `no answer from ${settings.host}:${settings.port} within ${settings.timeout} s`,
        ),
      );
    }, settings.timeout * 1000);
  });
  const running = (async () => {
    if (settings.security_protocol === "StartTLS")
      await conversation.client.startTLS(conversation.tlsOptions());
    return work(conversation.client);
  })();
  // Once the deadline has won, what the work does afterwards is of no interest.
  running.catch(() => {});
  try {
    return await Promise.race([running, deadline]);
  } catch (error) {
    if (error instanceof DirectoryUnavailable || error instanceof InvalidCredentialsError) throw error;
    throw new DirectoryUnavailable(describe(error));
  } finally {
    clearTimeout(timer);
    conversation.destroy();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code)
    ? `${error.message} (${code})`
    : error.message;
}

async function bindService(client: Client, settings: DirectorySettings): Promise<void> {
  if (settings.bind_dn === "") return;
  try {
    await client.bind(settings.bind_dn, settings.bind_password);
  } catch (error) {
    if (error instanceof InvalidCredentialsError)
      throw new DirectoryUnavailable(`the directory refused the bind DN ${settings.bind_dn}`);
    throw error;
  }
}

async function matches(client: Client, dn: string, filter: string): Promise<boolean> {
  if (filter === "") return false;
  const found = await client.search(dn, { scope: "base", filter, attributes: ["1.1"], sizeLimit: 1 });
  return found.searchEntries.length > 0;
}

async function rolesOf(client: Client, settings: DirectorySettings, dn: string) {
  const isAdmin = await matches(client, dn, settings.admin_filter);
  const isRestricted = !isAdmin && (await matches(client, dn, settings.restricted_filter));
  return { isAdmin, isRestricted };
}

async function onlyEntry(
  client: Client,
  base: string,
  scope: "base" | "sub",
  filter: string,
  attributes: string[],
) {
  // Two entries for one login name is a directory the sign-in cannot trust: refused like none.
  try {
    const found = await client.search(base, { scope, filter, attributes, sizeLimit: 2 });
    return found.searchEntries.length === 1 ? found.searchEntries[0] : undefined;
  } catch (error) {
    if (error instanceof SizeLimitExceededError) return undefined;
    throw error;
  }
}

/** Binds as the user; false when the directory refuses the password. */
async function bindUser(client: Client, dn: string, password: string): Promise<boolean> {
  try {
    await client.bind(dn, password);
    return true;
  } catch (error) {
    if (error instanceof InvalidCredentialsError) return false;
    throw error;
  }
}

/**
 * The user `login` names when `password` is theirs; undefined when the directory does not know
 * them, its filter does not match them, or the password is wrong. Throws DirectoryUnavailable when
 * the directory cannot tell.
 */
export async function signInToDirectory(
  settings: DirectorySettings,
  login: string,
  password: string,
): Promise<DirectoryUser | undefined> {
  // An empty password makes an LDAP bind anonymous, which every directory accepts.
  if (password === "" || login === "") return undefined;
  const attributes = attributesOf(settings);
  const filter = fill(settings.user_filter, Filter.escape(login));
  return converse(settings, true, async (client) => {
    if (settings.kind === "ldap_simple") {
      const dn = fill(settings.user_dn, escapeDnValue(login));
      if (!(await bindUser(client, dn, password))) return undefined;
      const entry =
        settings.user_search_base === ""
          ? await onlyEntry(client, dn, "base", filter, attributes)
          : await onlyEntry(client, settings.user_search_base, "sub", filter, attributes);
      return entry && userOf(settings, entry, login, await rolesOf(client, settings, entry.dn));
    }
    // A bind DN with the placeholder is the user's own DN: bind as them, with their password.
    const direct = settings.bind_dn.includes("%s") || settings.bind_dn.includes("%[1]s");
    if (direct) {
      if (!(await bindUser(client, fill(settings.bind_dn, escapeDnValue(login)), password))) return undefined;
    } else await bindService(client, settings);
    const found = await onlyEntry(client, settings.user_search_base, "sub", filter, attributes);
    if (!found) return undefined;
    const roles = await rolesOf(client, settings, found.dn);
    if (!direct && !(await bindUser(client, found.dn, password))) return undefined;
    const entry = settings.attributes_in_bind
      ? await onlyEntry(client, found.dn, "base", "(objectClass=*)", attributes)
      : found;
    return entry && userOf(settings, entry, login, roles);
  });
}

/** The DNs under the search base that the user filter and `extra` both match. */
async function matchingDns(client: Client, settings: DirectorySettings, userFilter: string, extra: string) {
  const dns = new Set<string>();
  if (extra === "") return dns;
  const filter = `(&${wrap(userFilter)}${wrap(extra)})`;
  for await (const page of client.searchPaginated(settings.user_search_base, {
    scope: "sub",
    filter,
    attributes: ["1.1"],
    paged: pagingOf(settings),
  }))
    for (const entry of page.searchEntries) dns.add(entry.dn.toLowerCase());
  return dns;
}

function wrap(filter: string): string {
  return filter.startsWith("(") ? filter : `(${filter})`;
}

function pagingOf(settings: DirectorySettings): { pageSize: number } | false {
  return settings.page_size > 0 ? { pageSize: settings.page_size } : false;
}

/**
 * Every user the source's filter matches (the placeholder standing for `*`), page by page, each
 * page handed to `take` before the next is asked for. Only a bind-DN source can list its users.
 */
export async function listDirectoryUsers(
  settings: DirectorySettings,
  take: (users: DirectoryUser[]) => Promise<void>,
): Promise<void> {
  const userFilter = fill(settings.user_filter, "*");
  await converse(settings, false, async (client) => {
    await bindService(client, settings);
    const admins = await matchingDns(client, settings, userFilter, settings.admin_filter);
    const restricted = await matchingDns(client, settings, userFilter, settings.restricted_filter);
    for await (const page of client.searchPaginated(settings.user_search_base, {
      scope: "sub",
      filter: userFilter,
      attributes: attributesOf(settings),
      paged: pagingOf(settings),
    })) {
      const users = page.searchEntries.map((entry) => {
        const dn = entry.dn.toLowerCase();
        const isAdmin = admins.has(dn);
        return userOf(settings, entry, "", { isAdmin, isRestricted: !isAdmin && restricted.has(dn) });
      });
      await take(users.filter((user) => user.username !== ""));
    }
  });
}

/** What one trial of a source found: the first users its filter matches, or the error. */
export interface DirectoryTrial {
  ok: boolean;
  /** Up to SAMPLE users the filter matches (bind-DN sources), or the one signed in. */
  users: DirectoryUser[];
  error?: string;
}

const SAMPLE = 10;

/**
 * Binds and searches once, as a sign-in would: with `credentials`, signs that user in; without,
 * binds as the service account and lists the first users the filter matches (a simple-auth source,
 * which has no service account, is only connected to).
 */
export async function tryDirectory(
  settings: DirectorySettings,
  credentials?: { username: string; password: string },
): Promise<DirectoryTrial> {
  try {
    if (credentials) {
      const user = await signInToDirectory(settings, credentials.username, credentials.password);
      return user
        ? { ok: true, users: [user] }
        : { ok: false, users: [], error: "the directory refused this user name and password" };
    }
    const users = await converse(settings, true, async (client) => {
      if (settings.kind === "ldap_simple") return [];
      await bindService(client, settings);
      // One page of SAMPLE, where a size limit would make the directory answer an error instead.
      for await (const page of client.searchPaginated(settings.user_search_base, {
        scope: "sub",
        filter: fill(settings.user_filter, "*"),
        attributes: attributesOf(settings),
        paged: { pageSize: SAMPLE },
      })) {
        const users: DirectoryUser[] = [];
        for (const entry of page.searchEntries.slice(0, SAMPLE))
          users.push(userOf(settings, entry, "", await rolesOf(client, settings, entry.dn)));
        return users;
      }
      return [];
    });
    return { ok: true, users };
  } catch (error) {
    return { ok: false, users: [], error: error instanceof Error ? error.message : String(error) };
  }
}
