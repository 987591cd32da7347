import { type AnyKysely, createWebSessionTable, type NamedMigration } from "@anvil/core";

/** Signed-in browser sessions of the web pages (core's sessions). */
export const webSessions: NamedMigration = {
  name: "0020_web_sessions",
  up: (db: AnyKysely) => createWebSessionTable(db),
};
