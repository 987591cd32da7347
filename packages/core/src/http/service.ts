import type { Logger } from "pino";
import { createDb, type Database } from "../db/database.ts";
import { migrate, type NamedMigration } from "../db/migrator.ts";
import type { ServiceApp } from "../service.ts";
import { createHttpServer, type ErrorMapper, type HttpServer } from "./server.ts";

export interface HttpServiceOptions {
  name: string;
  host: string;
  port: number;
  logger: Logger;
  databaseUrl: string;
  /** History table prefix: `<migrationOwner>_migrations`. */
  migrationOwner: string;
  migrations: readonly NamedMigration[];
  mapError: ErrorMapper;
  bodyLimit?: number;
  /** Adds the service's routes; called once the database is migrated. */
  register(app: HttpServer, database: Database): void | Promise<void>;
}

export interface HttpService extends ServiceApp {
  /** Set once listen() has opened the database. */
  readonly database: Database | undefined;
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/** A database-backed HTTP service: open and migrate the database, add routes, listen; close in reverse. */
export function createHttpService(options: HttpServiceOptions): HttpService {
  let database: Database | undefined;
  let app: HttpServer | undefined;
  return {
    name: options.name,
    get database() {
      return database;
    },
    async listen() {
      database = createDb(options.databaseUrl);
      try {
        const report = await migrate(database.db, options.migrationOwner, options.migrations);
        if (report.applied.length > 0) options.logger.info({ applied: report.applied }, "database migrated");
        app = createHttpServer({
          logger: options.logger,
          mapError: options.mapError,
          bodyLimit: options.bodyLimit,
        });
        await options.register(app, database);
        await app.listen({ host: options.host, port: options.port });
      } catch (error) {
        await app?.close();
        await database.close();
        database = undefined;
        throw error;
      }
      const address = app.server.address();
      const port = typeof address === "object" && address !== null ? address.port : options.port;
      return `http://${urlHost(options.host)}:${port}`;
    },
    async close() {
      await app?.close();
      await database?.close();
    },
  };
}
