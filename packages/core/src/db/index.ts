export { claimed, forUpdate } from "./claims.ts";
export {
  type AnyKysely,
  connectDatabase,
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
  dateType,
  dialectOf,
  escapeLike,
  idType,
  isForeignKeyViolation,
  isUniqueViolation,
  pingDatabase,
  readBool,
  readTime,
  timestampType,
  toStoredTime,
} from "./dialect.ts";
export { type MigrationReport, migrate, type NamedMigration } from "./migrator.ts";
export { keptCount, keptRows, prepared } from "./prepared.ts";
export { sideColumn } from "./read-batch.ts";
export { RowMemo } from "./row-memo.ts";
export {
  containingDocs,
  createTextIndex,
  indexText,
  indexTexts,
  matchingDocs,
  removeText,
  type SubstringIndex,
  substringMatch,
  type TextIndexOptions,
  textMatch,
} from "./text-search.ts";
