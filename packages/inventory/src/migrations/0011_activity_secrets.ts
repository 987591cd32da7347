import type { AnyKysely, NamedMigration } from "@anvil/core";

// Updates logged before the activity log kept to an allow-list of fields recorded a user's password
// hash and a license's product key in log_meta, which `reports.view` reads: take them out.
const SECRETS: Readonly<Record<string, string>> = { user: "password", license: "serial" };

export const activitySecrets: NamedMigration = {
  name: "0011_activity_secrets",
  async up(db: AnyKysely) {
    for (const [itemType, field] of Object.entries(SECRETS)) {
      const rows = await db
        .selectFrom("action_logs")
        .select(["id", "log_meta"])
        .where("item_type", "=", itemType)
        .where("log_meta", "like", `%"${field}"%`)
        .execute();
      for (const row of rows) {
        const meta = JSON.parse(String(row.log_meta)) as Record<string, unknown>;
        if (!Object.hasOwn(meta, field)) continue;
        delete meta[field];
        await db
          .updateTable("action_logs")
          .set({ log_meta: Object.keys(meta).length > 0 ? JSON.stringify(meta) : null })
          .where("id", "=", row.id)
          .execute();
      }
    }
  },
};
