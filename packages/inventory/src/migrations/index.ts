import type { NamedMigration } from "@anvil/core";

/** Every inventory migration, in order; each file is NNNN_name.ts. */
export const migrations: readonly NamedMigration[] = [];
