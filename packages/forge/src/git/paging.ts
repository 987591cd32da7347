import { Invalid } from "@anvil/core";

/** Which page of a list: 1-based page, and at most `limit` items (core's pageWindow makes one). */
export interface PageRequest {
  page: number;
  limit: number;
}

/** How many items to skip; throws Invalid for a page or limit that is not a whole number ≥ 1. */
export function pageOffset({ page, limit }: PageRequest): number {
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(limit) || limit < 1) {
    throw new Invalid("page and limit must be whole numbers of at least 1");
  }
  return (page - 1) * limit;
}
