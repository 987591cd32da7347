import type { SubstringIndex } from "@anvil/core";

/**
 * The substring index of the assets' own searched text (migration 0018). A migration fixes its
 * columns: searching another one takes a new migration that recreates the index.
 */
export const ASSET_SEARCH: SubstringIndex = {
  name: "asset_search",
  documents: "assets",
  columns: ["name", "asset_tag", "serial", "order_number", "purchase_cost", "notes", "purchase_date"],
};
