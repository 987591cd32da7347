import type { NamedMigration } from "@anvil/core";

/** Every forge migration, in order; each file is NNNN_name.ts. */
export const migrations: readonly NamedMigration[] = [];
