import type { AnyKysely, NamedMigration } from "@anvil/core";

/** A token's scopes (a JSON list of permission names); NULL for one that carries all its user's permissions. */
export const tokenScopes: NamedMigration = {
  name: "0015_token_scopes",
  async up(db: AnyKysely) {
    await db.schema.alterTable("personal_access_tokens").addColumn("scopes", "text").execute();
  },
};
