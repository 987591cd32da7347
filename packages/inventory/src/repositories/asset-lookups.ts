import { prepared } from "@anvil/core";
import type { Kysely } from "kysely";
import type { InventoryTables } from "../schemas/tables.ts";
import type { Row } from "./records.ts";

// The reads of one asset that GET /hardware/{id} and /hardware/bytag/{tag} make on every request,
// built and compiled once (core's prepared()). On SQLite their rows stay the same frozen objects
// until a write, which is what keeps an asset's rendered answer (convert/asset.ts) found: through
// keptRows, whose budget is shared by every list, 10,000 assets read in turn went past it and
// were read, rendered and serialized anew (bench/inventory.ts, scenarios (f) and (g)).

const byId = prepared((db: Kysely<InventoryTables>, id: number) =>
  db.selectFrom("assets").selectAll().where("id", "=", id),
);

/** The asset with this id, deleted or not. */
export async function assetById(db: Kysely<InventoryTables>, id: number): Promise<Row | undefined> {
  const [row] = await byId(db, id);
  return row as Row | undefined;
}

type LookupColumn = "asset_tag" | "serial";

function byColumn(column: LookupColumn, withDeleted: boolean) {
  return prepared((db: Kysely<InventoryTables>, value: string) =>
    db
      .selectFrom("assets")
      .selectAll()
      .where(column, "=", value)
      .$if(!withDeleted, (q) => q.where("deleted_at", "is", null))
      .orderBy("id"),
  );
}

const byColumnRead = {
  asset_tag: { live: byColumn("asset_tag", false), all: byColumn("asset_tag", true) },
  serial: { live: byColumn("serial", false), all: byColumn("serial", true) },
};

/** The assets whose tag (or serial) is this text, in id order; deleted ones too when asked. */
export async function assetsWithValue(
  db: Kysely<InventoryTables>,
  column: LookupColumn,
  value: string,
  withDeleted: boolean,
): Promise<readonly Row[]> {
  const read = byColumnRead[column];
  return (await (withDeleted ? read.all : read.live)(db, value)) as readonly Row[];
}
