import { type AnyKysely, createTextIndex, type NamedMigration } from "@anvil/core";
import { ASSET_SEARCH } from "../repositories/asset-search.ts";

// The asset search (spec §7.2) from an index instead of a scan of every asset:
// - a substring (trigram) index of the asset's own searched columns, kept by triggers on assets,
//   so every write path (the API, bulk edits, imports) keeps it in the same transaction; existing
//   assets are indexed here;
// - indexes on the foreign keys a search also matches by the related row's name (company,
//   default location, supplier), so that a term naming none of those rows costs a look-up, not a
//   scan. The others (model, label, location, holder) were indexed by 0004.
export const assetSearch: NamedMigration = {
  name: "0018_asset_search",
  async up(db: AnyKysely) {
    await createTextIndex(db, ASSET_SEARCH.name, {
      documents: ASSET_SEARCH.documents,
      substringOf: ASSET_SEARCH.columns,
    });
    for (const column of ["company_id", "rtd_location_id", "supplier_id"])
      await db.schema.createIndex(`assets_${column}`).on("assets").column(column).execute();
  },
};
