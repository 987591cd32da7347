export {
  type AnyKysely,
  createDb,
  type Database,
  type DatabaseOptions,
  type DialectName,
  parseDatabaseUrl,
  redactUrl,
} from "./database.ts";
export {
  addIdColumn,
  containsText,
  countRows,
  escapeLike,
  pingDatabase,
  readTime,
  timestampType,
  toStoredTime,
} from "./dialect.ts";
export { type MigrationReport, migrate, type NamedMigration } from "./migrator.ts";
