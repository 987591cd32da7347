import type { Logger } from "pino";
import { DEFAULT_SHUTDOWN_GRACE_MS } from "./config/service-settings.ts";
import { connectDatabase, type Database } from "./db/database.ts";
import { migrate, type NamedMigration } from "./db/migrator.ts";
import type { UploadLimits } from "./http/bodies.ts";
import type { ErrorMapper } from "./http/problem.ts";
import { createHttpServer, type HttpServer, type OpenApiOptions, type TrustProxy } from "./http/server.ts";

/** What every anvil service's createApp(config) returns; `anvil serve` starts and stops these. */
export interface ServiceApp {
  readonly name: string;
  /** Starts listening; resolves with the address clients use, e.g. `http://127.0.0.1:9000`. */
  listen(): Promise<string>;
  /** Stops accepting connections and waits for in-flight requests and work to finish. */
  close(): Promise<void>;
}

export interface DatabaseConfig {
  /** sqlite:PATH or postgres://… */
  url: string;
  /** PostgreSQL connections per process. */
  poolSize?: number;
  /** Prepared statements kept per SQLite connection. */
  statementCacheSize?: number;
}

/** How a database-backed service (forge, inventory) is configured; `anvil serve` builds one per service. */
export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  logger: Logger;
  database: DatabaseConfig;
  /** Public URL behind any proxy; empty or absent means the address the service listens on. */
  rootUrl?: string;
  trustProxy?: TrustProxy;
  /** How long in-flight requests may run after a stop is asked for, in milliseconds. */
  shutdownGraceMs?: number;
}

export interface HttpServiceOptions<Tables> {
  name: string;
  config: ServiceConfig;
  /** History table prefix: `<migrationOwner>_migrations`. */
  migrationOwner: string;
  migrations: readonly NamedMigration[];
  /**
   * Every failure of a request, whatever its source, as the API's error response: domain errors the
   * routes throw, schema failures, unknown routes, unreadable bodies, unexpected errors (see
   * http/problem.ts).
   */
  mapError: ErrorMapper;
  openapi?: OpenApiOptions;
  bodyLimit?: number;
  uploads?: UploadLimits;
  /** See HttpServerOptions.strictBodyTypes. */
  strictBodyTypes?: boolean;
  /** See HttpServerOptions.nullMeansAbsent. */
  nullMeansAbsent?: boolean;
  /** Adds the service's routes; called once the database is migrated. */
  register(app: HttpServer, database: Database<Tables>): void | Promise<void>;
  /**
   * Other servers of the service (the forge's SSH server): started once HTTP listens, stopped
   * after it and before the database closes.
   */
  companions?: Array<(database: Database<Tables>) => Promise<{ close(): Promise<void> }>>;
}

export interface HttpService<Tables = unknown> extends ServiceApp {
  /** Set once listen() has opened the database. */
  readonly database: Database<Tables> | undefined;
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * A database-backed HTTP service: connect to and migrate the database, add routes, listen; close in
 * reverse. Closing stops accepting at once, lets in-flight requests finish for the grace period,
 * then cuts the connections still open, so one stuck client cannot keep the process alive.
 */
export function createHttpService<Tables>(options: HttpServiceOptions<Tables>): HttpService<Tables> {
  const { config } = options;
  let database: Database<Tables> | undefined;
  let app: HttpServer | undefined;
  let companions: Array<{ close(): Promise<void> }> = [];
  let listeningUrl = "";
  let listeningRoot: URL | undefined;
  const configuredRoot = config.rootUrl ? new URL(config.rootUrl) : undefined;
  // Asked for by every response that carries an absolute URL: parse it once per listen.
  const rootUrl = () => {
    if (configuredRoot) return configuredRoot;
    if (listeningRoot === undefined) listeningRoot = new URL(`${listeningUrl}/`);
    return listeningRoot;
  };

  /** Resolves with whether the grace period ran out and requests were cut. */
  const stopServer = async (server: HttpServer): Promise<boolean> => {
    const grace = config.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    let cut = false;
    const timer = setTimeout(() => {
      cut = true;
      config.logger.warn(
        `${options.name}: requests still running after ${grace} ms; closing their connections`,
      );
      server.server.closeAllConnections();
    }, grace);
    try {
      await server.close();
    } finally {
      clearTimeout(timer);
    }
    return cut;
  };

  return {
    name: options.name,
    get database() {
      return database;
    },
    async listen() {
      database = await connectDatabase<Tables>(config.database.url, {
        poolSize: config.database.poolSize,
        statementCacheSize: config.database.statementCacheSize,
        logger: config.logger,
      });
      try {
        const report = await migrate(database.db, options.migrationOwner, options.migrations);
        if (report.applied.length > 0) config.logger.info({ applied: report.applied }, "database migrated");
        app = await createHttpServer({
          logger: config.logger,
          mapError: options.mapError,
          rootUrl,
          bodyLimit: options.bodyLimit,
          uploads: options.uploads,
          trustProxy: config.trustProxy,
          openapi: options.openapi,
          strictBodyTypes: options.strictBodyTypes,
          nullMeansAbsent: options.nullMeansAbsent,
        });
        await options.register(app, database);
        await app.listen({ host: config.host, port: config.port });
        // Requests are answered from here on, while the companions start: they need the root URL.
        const address = app.server.address();
        const port = typeof address === "object" && address !== null ? address.port : config.port;
        listeningUrl = `http://${urlHost(config.host)}:${port}`;
        listeningRoot = undefined;
        for (const start of options.companions ?? []) companions.push(await start(database));
      } catch (error) {
        await Promise.allSettled(companions.map((companion) => companion.close()));
        companions = [];
        await app?.close();
        await database.close();
        database = undefined;
        throw error;
      }
      return listeningUrl;
    },
    async close() {
      const cut = app ? await stopServer(app) : false;
      await Promise.allSettled(companions.map((companion) => companion.close()));
      // The handler of a cut request may still be waiting on the database.
      await database?.close({ interrupt: cut });
    },
  };
}
