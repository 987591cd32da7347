import { type AnyKysely, createLoginThrottleTable, type NamedMigration } from "@anvil/core";

/** Failed password logins per account name and per address (core's login throttle). */
export const loginThrottle: NamedMigration = {
  name: "0007_login_throttle",
  up: (db: AnyKysely) => createLoginThrottleTable(db),
};
