import { type AnyKysely, addIdColumn, createOutboxTable, type NamedMigration } from "@anvil/core";
import { tableKit } from "./columns.ts";

/**
 * Our addition (spec §26): generic webhook endpoints, each with a secret that signs its deliveries
 * and the events it hears; and core's outbox, which holds their deliveries and those to the
 * Slack / Teams / general webhook of the settings.
 */
export const webhooks: NamedMigration = {
  name: "0016_webhooks",
  async up(db: AnyKysely) {
    const kit = tableKit(db);
    await addIdColumn(db.schema.createTable("webhooks"), kit.dialect)
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("url", "text", (c) => c.notNull())
      // Keys the signatures; sent nowhere, answered by no route.
      .addColumn("secret", "text", (c) => c.notNull().defaultTo(""))
      // The event names it hears, as a JSON list.
      .addColumn("events", "text", (c) => c.notNull())
      .addColumn("active", "boolean", (c) => c.notNull().defaultTo(true))
      .addColumn("created_by", kit.id, (c) => c.references("users.id"))
      .addColumn("created_at", kit.time, (c) => c.notNull())
      .addColumn("updated_at", kit.time, (c) => c.notNull())
      .execute();
    await createOutboxTable(db);
  },
};
