import { type AnyKysely, createLoginThrottleTable, type NamedMigration } from "@anvil/core";

/** Failed password sign-ins per username and per address (core's login throttle). */
export const loginThrottle: NamedMigration = {
  name: "0010_login_throttle",
  up: (db: AnyKysely) => createLoginThrottleTable(db),
};
