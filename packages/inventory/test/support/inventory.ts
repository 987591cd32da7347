import { after, before } from "node:test";
import {
  forEachDatabase,
  type StartedApp,
  serviceConfig,
  startApp,
  type TestDatabase,
} from "@anvil/core/testing";
import { createApp, type InventoryOptions } from "../../src/index.ts";
import { createToken } from "../../src/services/tokens.ts";
import { createFirstUser } from "../../src/services/users.ts";

export type Inventory = StartedApp<ReturnType<typeof createApp>>;

export interface InventoryState {
  readonly server: Inventory;
  readonly url: string;
  /** A read/write token of the superuser `admin`. */
  readonly adminToken: string;
  readonly database: TestDatabase;
}

/**
 * An inventory on a fresh database of each kind, with a superuser and a token of theirs (none with
 * `{ admin: false }`: a first run, before any user exists).
 */
export function forEachInventory(
  title: string,
  body: (inventory: InventoryState) => void,
  options: InventoryOptions = { apiThrottlePerMinute: 0 },
  setup: { admin?: boolean } = {},
): void {
  forEachDatabase(title, (database) => {
    const state = { server: undefined as unknown as Inventory, url: "", adminToken: "", database };
    before(async () => {
      state.server = await startApp(({ dataDir }) =>
        createApp(serviceConfig(dataDir, database.url), options),
      );
      state.url = state.server.url;
      const db = state.server.app.database;
      if (!db) throw new Error("the inventory did not open its database");
      if (setup.admin === false) return;
      const admin = await createFirstUser(db, {
        username: "admin",
        password: "adminpassword",
        email: "admin@example.com",
        superuser: true,
        firstName: "Admin",
      });
      state.adminToken = (await createToken(db, admin, { name: "setup" })).secret;
    });
    after(() => state.server.close());
    body(state);
  });
}

/** A user with exactly these permissions, and a token (read-only or scoped when asked). */
export async function userWithToken(
  inventory: InventoryState,
  username: string,
  permissions: Record<string, string>,
  options: { readOnly?: boolean; scopes?: string[] } = {},
): Promise<{ id: number; token: string }> {
  const created = await api<{ payload: { id: number } }>(inventory, "POST", "/users", {
    body: {
      first_name: username,
      username,
      password: "password123",
      password_confirmation: "password123",
      permissions,
    },
  });
  const db = inventory.server.app.database;
  if (!db || !created.body.payload)
    throw new Error(`could not create ${username}: ${JSON.stringify(created.body)}`);
  const user = await db.db
    .selectFrom("users")
    .selectAll()
    .where("id", "=", created.body.payload.id)
    .executeTakeFirstOrThrow();
  const { secret } = await createToken(db, user, {
    name: "test",
    readOnly: options.readOnly,
    scopes: options.scopes,
  });
  return { id: user.id, token: secret };
}

export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** What a client needs: an inventory's base URL and the admin's token. */
export type InventoryClient = Pick<InventoryState, "url" | "adminToken">;

/** Calls /api/v1 as a client would; the admin's token unless another (or none: "") is given. */
export async function api<T = unknown>(
  inventory: InventoryClient,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  const token = options.token ?? inventory.adminToken;
  if (token !== "") headers.authorization = `Bearer ${token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${inventory.url}/api/v1${path}`, { method, headers, body });
  const text = await res.text();
  return {
    status: res.status,
    body: (text === "" ? undefined : JSON.parse(text)) as T,
    headers: res.headers,
  };
}
