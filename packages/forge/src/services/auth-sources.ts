import { Invalid, isUniqueViolation, NotFound, readBool, secretCipher, toStoredTime } from "@anvil/core";
import { FilterParser } from "ldapts";
import { apiTime } from "../convert/time.ts";
import { pascalCase } from "../errors.ts";
import {
  type AuthSourceRow,
  deleteUnusedAuthSource,
  findAuthSource,
  insertAuthSource,
  listAuthSources,
  updateAuthSource,
} from "../repositories/auth-sources.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { type DirectorySettings, SECURITY_PROTOCOLS, type SecurityProtocol } from "./directory.ts";

// Authentication sources (Gitea's login sources), managed over the API, which Gitea cannot do
// (go-gitea/gitea#26417), and by `anvil forge admin auth`, as `gitea admin auth`. Two of Gitea's
// types: LDAP via bind DN (2) and LDAP simple auth (5). The fields are those of Gitea's LDAP
// source under the names of its CLI flags; the bind password is kept encrypted and never answered.

/** Gitea's type numbers and names. */
export const SOURCE_TYPES = {
  ldap: { number: 2, name: "LDAP (via BindDN)" },
  ldap_simple: { number: 5, name: "LDAP (simple auth)" },
} as const;
export type SourceType = keyof typeof SOURCE_TYPES;

const ENCRYPTION_KEY = "auth_sources";
const DEFAULT_TIMEOUT_SECONDS = 5;
const MAX_TIMEOUT_SECONDS = 60;
const MAX_PAGE_SIZE = 10_000;
const MAX_TEXT = 2048;

/** The settings stored as the row's JSON config. */
interface StoredConfig extends Omit<DirectorySettings, "kind"> {
  allow_deactivate_all: boolean;
  avatar_attribute: string;
  skip_local_2fa: boolean;
}

const TEXT_FIELDS = [
  "host",
  "bind_dn",
  "bind_password",
  "user_search_base",
  "user_dn",
  "user_filter",
  "admin_filter",
  "restricted_filter",
  "username_attribute",
  "firstname_attribute",
  "surname_attribute",
  "email_attribute",
  "public_ssh_key_attribute",
  "avatar_attribute",
] as const;
const FLAG_FIELDS = [
  "skip_tls_verify",
  "attributes_in_bind",
  "allow_deactivate_all",
  "skip_local_2fa",
] as const;

/** What a create or an edit may send; on an edit every field is optional. */
export interface SourceInput {
  type?: string;
  name?: string;
  is_active?: boolean;
  is_sync_enabled?: boolean;
  security_protocol?: string;
  port?: number;
  page_size?: number;
  timeout?: number;
  host?: string;
  bind_dn?: string;
  bind_password?: string;
  user_search_base?: string;
  user_dn?: string;
  user_filter?: string;
  admin_filter?: string;
  restricted_filter?: string;
  username_attribute?: string;
  firstname_attribute?: string;
  surname_attribute?: string;
  email_attribute?: string;
  public_ssh_key_attribute?: string;
  avatar_attribute?: string;
  skip_tls_verify?: boolean;
  attributes_in_bind?: boolean;
  allow_deactivate_all?: boolean;
  skip_local_2fa?: boolean;
}

function typeOf(row: AuthSourceRow): SourceType {
  return row.type === SOURCE_TYPES.ldap_simple.number ? "ldap_simple" : "ldap";
}

function emptyConfig(): StoredConfig {
  return {
    host: "",
    port: 0,
    security_protocol: "Unencrypted",
    skip_tls_verify: false,
    bind_dn: "",
    bind_password: "",
    user_search_base: "",
    user_dn: "",
    user_filter: "",
    admin_filter: "",
    restricted_filter: "",
    username_attribute: "",
    firstname_attribute: "",
    surname_attribute: "",
    email_attribute: "",
    public_ssh_key_attribute: "",
    avatar_attribute: "",
    attributes_in_bind: false,
    allow_deactivate_all: false,
    skip_local_2fa: false,
    page_size: 0,
    timeout: DEFAULT_TIMEOUT_SECONDS,
  };
}

function protocolNamed(name: string): SecurityProtocol {
  const found = SECURITY_PROTOCOLS.find((protocol) => protocol.toLowerCase() === name.toLowerCase());
  if (!found) throw new Invalid(`Unknown security protocol name: ${name}`);
  return found;
}

function checkFilter(field: string, filter: string): void {
  if (filter === "") return;
  try {
    FilterParser.parseString(filter.replaceAll("%[1]s", "x").replaceAll("%s", "x"));
  } catch {
    throw new Invalid(`[${pascalCase(field)}]: not a valid LDAP filter`);
  }
}

function wholeNumber(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Invalid(`[${pascalCase(field)}]: must be a whole number from ${min} to ${max}`);
  return value;
}

/** The input laid over `config`, checked; the bind password still in the clear. */
function applyInput(config: StoredConfig, input: SourceInput): StoredConfig {
  const next = { ...config };
  for (const field of TEXT_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    if (value.length > MAX_TEXT)
      throw new Invalid(`[${pascalCase(field)}]: longer than ${MAX_TEXT} characters`);
    next[field] = field === "bind_password" ? value : value.trim();
  }
  for (const field of FLAG_FIELDS) if (input[field] !== undefined) next[field] = input[field];
  if (input.security_protocol !== undefined) next.security_protocol = protocolNamed(input.security_protocol);
  if (input.port !== undefined) next.port = wholeNumber("port", input.port, 1, 65_535);
  if (input.page_size !== undefined)
    next.page_size = wholeNumber("page_size", input.page_size, 0, MAX_PAGE_SIZE);
  if (input.timeout !== undefined)
    next.timeout = wholeNumber("timeout", input.timeout, 1, MAX_TIMEOUT_SECONDS);
  checkFilter("user_filter", next.user_filter);
  checkFilter("admin_filter", next.admin_filter);
  checkFilter("restricted_filter", next.restricted_filter);
  return next;
}

/** What Gitea's CLI insists on for each type (argsSet of add-ldap and add-ldap-simple). */
function checkComplete(type: SourceType, config: StoredConfig): void {
  const required: (keyof StoredConfig)[] = ["host", "user_filter", "email_attribute"];
  required.push(type === "ldap" ? "user_search_base" : "user_dn");
  for (const field of required)
    if (config[field] === "") throw new Invalid(`[${pascalCase(field)}]: Required`);
  if (config.port === 0) throw new Invalid("[Port]: Required");
}

function checkName(name: string | undefined): string {
  const trimmed = name?.trim() ?? "";
  if (trimmed === "") throw new Invalid("[Name]: Required");
  if (trimmed.length > 255) throw new Invalid("[Name]: longer than 255 characters");
  return trimmed;
}

async function sealed(database: ForgeDatabase, config: StoredConfig): Promise<string> {
  const cipher = await secretCipher(database.db, ENCRYPTION_KEY);
  const bind_password = config.bind_password === "" ? "" : cipher.encrypt(config.bind_password);
  return JSON.stringify({ ...config, bind_password });
}

/** The row's config with the bind password decrypted (empty when it cannot be). */
async function opened(database: ForgeDatabase, row: AuthSourceRow): Promise<StoredConfig> {
  const stored = { ...emptyConfig(), ...(JSON.parse(row.config) as Partial<StoredConfig>) };
  if (stored.bind_password === "") return stored;
  const cipher = await secretCipher(database.db, ENCRYPTION_KEY);
  return { ...stored, bind_password: cipher.decrypt(stored.bind_password) ?? "" };
}

function alreadyExists(name: string): Invalid {
  return new Invalid(`login source already exists [name: ${name}]`);
}

export async function createAuthSource(database: ForgeDatabase, input: SourceInput): Promise<AuthSourceRow> {
  const type = input.type;
  if (type !== "ldap" && type !== "ldap_simple") throw new Invalid('[Type]: must be "ldap" or "ldap_simple"');
  const name = checkName(input.name);
  if (input.security_protocol === undefined) throw new Invalid("[SecurityProtocol]: Required");
  const config = applyInput(emptyConfig(), input);
  checkComplete(type, config);
  const now = toStoredTime(new Date(), database.dialect);
  try {
    return await insertAuthSource(database.db, {
      type: SOURCE_TYPES[type].number,
      name,
      is_active: input.is_active ?? true,
      // Only a bind-DN source can list its users.
      is_sync_enabled: type === "ldap" && (input.is_sync_enabled ?? false),
      config: await sealed(database, config),
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyExists(name);
    throw error;
  }
}

export async function getAuthSource(database: ForgeDatabase, id: number): Promise<AuthSourceRow> {
  const row = await findAuthSource(database.db, id);
  if (!row) throw new NotFound(`login source does not exist [id: ${id}]`);
  return row;
}

/** Changes what `input` sends; `type`, when sent, must be the source's own (as update-ldap checks). */
export async function editAuthSource(
  database: ForgeDatabase,
  id: number,
  input: SourceInput,
): Promise<AuthSourceRow> {
  const row = await getAuthSource(database, id);
  const type = typeOf(row);
  if (input.type !== undefined && input.type !== type)
    throw new Invalid(
      `Invalid authentication type. expected: ${SOURCE_TYPES[input.type as SourceType]?.name ?? input.type}, actual: ${SOURCE_TYPES[type].name}`,
    );
  const name = input.name === undefined ? row.name : checkName(input.name);
  const config = applyInput(await opened(database, row), input);
  checkComplete(type, config);
  try {
    const edited = await updateAuthSource(database.db, id, {
      name,
      is_active: input.is_active ?? readBool(row.is_active),
      is_sync_enabled: type === "ldap" && (input.is_sync_enabled ?? readBool(row.is_sync_enabled)),
      config: await sealed(database, config),
      updated_at: toStoredTime(new Date(), database.dialect),
    });
    if (!edited) throw new NotFound(`login source does not exist [id: ${id}]`);
    return edited;
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyExists(name);
    throw error;
  }
}

/** Deletes a source no user belongs to; Gitea's ErrSourceInUse otherwise. */
export async function deleteAuthSource(database: ForgeDatabase, id: number): Promise<void> {
  const { deleted, inUse } = await deleteUnusedAuthSource(database.db, id);
  if (inUse) throw new Invalid(`login source is still used by at least one user [id: ${id}]`);
  if (!deleted) throw new NotFound(`login source does not exist [id: ${id}]`);
}

export function listSources(database: ForgeDatabase, window: { offset: number; limit: number }) {
  return listAuthSources(database.db, window);
}

/** What a conversation with the source's directory needs. */
export async function directorySettings(
  database: ForgeDatabase,
  row: AuthSourceRow,
): Promise<DirectorySettings> {
  const {
    allow_deactivate_all: _a,
    avatar_attribute: _b,
    skip_local_2fa: _c,
    ...settings
  } = await opened(database, row);
  return { kind: typeOf(row), ...settings };
}

/** Whether a sync may deactivate every user of the source when the directory lists none. */
export async function allowsDeactivateAll(database: ForgeDatabase, row: AuthSourceRow): Promise<boolean> {
  return (await opened(database, row)).allow_deactivate_all;
}

/** A source as the API answers it: every setting but the bind password, which it says is set. */
export async function toApiAuthSource(database: ForgeDatabase, row: AuthSourceRow) {
  const { bind_password, ...config } = await opened(database, row);
  const type = typeOf(row);
  return {
    id: row.id,
    name: row.name,
    type,
    type_name: SOURCE_TYPES[type].name,
    is_active: readBool(row.is_active),
    is_sync_enabled: readBool(row.is_sync_enabled),
    ...config,
    bind_password_set: bind_password !== "",
    created: apiTime(row.created_at),
    updated: apiTime(row.updated_at),
  };
}
