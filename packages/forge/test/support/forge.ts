import assert from "node:assert/strict";
import { after, before } from "node:test";
import { createLogger } from "@anvil/core";
import { forEachDatabase, freePort, type StartedApp, serviceConfig, startApp } from "@anvil/core/testing";
import { createApp, type ForgeOptions } from "../../src/index.ts";
import { createUser } from "../../src/services/accounts.ts";
import { createToken } from "../../src/services/tokens.ts";
import { assertGiteaShape } from "./swagger.ts";

export type Forge = StartedApp<ReturnType<typeof createApp>>;

export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** A forge on a fresh database of each kind, with a site admin and a token of theirs. */
export function forEachForge(
  title: string,
  body: (forge: {
    readonly server: Forge;
    readonly adminToken: string;
    readonly url: string;
    /** The forge's database, for a second connection as another process would hold. */
    readonly databaseUrl: string;
    /** The SSH server's port, when `ssh` was asked for. */
    readonly sshPort: number;
  }) => void,
  options: {
    ssh?: boolean;
    trustProxy?: boolean;
    forge?: Omit<ForgeOptions, "sshPort">;
    /** Where the forge's log lines (info and up) go; by default nowhere. */
    log?: string[];
  } = {},
): void {
  forEachDatabase(title, (database) => {
    const state = {
      server: undefined as unknown as Forge,
      adminToken: "",
      url: "",
      databaseUrl: "",
      sshPort: 0,
    };
    before(async () => {
      state.sshPort = options.ssh ? await freePort() : 0;
      state.server = await startApp(({ dataDir }) =>
        createApp(
          serviceConfig(dataDir, database.url, {
            rootUrl: "http://forge.test/",
            trustProxy: options.trustProxy,
            ...(options.log && {
              logger: createLogger({
                level: "info",
                destination: { write: (line: string) => options.log?.push(line) },
              }),
            }),
          }),
          { ...options.forge, sshPort: state.sshPort },
        ),
      );
      state.url = state.server.url;
      state.databaseUrl = database.url;
      const db = state.server.app.database;
      if (!db) throw new Error("the forge did not open its database");
      const admin = await createUser(db, {
        username: "root",
        email: "root@example.com",
        password: "rootpassword",
        admin: true,
        must_change_password: false,
      });
      state.adminToken = (await createToken(db, admin, { name: "setup", scopes: ["all"] })).secret;
    });
    after(() => state.server.close());
    body(state);
  });
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

/**
 * Calls the API as a client would; a JSON body is checked against the swagger definition named in
 * `shape` (errors always against Gitea's {message, url}).
 */
export async function api<T = unknown>(
  base: string,
  method: string,
  path: string,
  options: {
    auth?: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
    shape?: string;
  } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `token ${options.token}`;
  if (options.auth) headers.authorization = options.auth;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  const body = (text === "" ? undefined : JSON.parse(text)) as T;
  if (res.status >= 400) {
    const error = body as { message?: unknown; url?: unknown };
    assert.equal(typeof error?.message, "string", `error body without a message: ${text}`);
    assert.equal(typeof error?.url, "string", `error body without a url: ${text}`);
  } else if (options.shape) assertGiteaShape(options.shape, body);
  return { status: res.status, body, headers: res.headers };
}
