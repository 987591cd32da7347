// The two list styles the originals use: page/limit (Gitea) and limit/offset (Snipe-IT).

export interface PageWindow {
  page: number;
  limit: number;
  offset: number;
}

export interface PageLimits {
  defaultLimit: number;
  maxLimit: number;
}

/** A whole number of at least `min` from a query value, or undefined. */
function integerAtLeast(value: unknown, min: number): number | undefined {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isSafeInteger(n) && n >= min ? n : undefined;
}

/** `?page=2&limit=30`: page starts at 1; limit is clamped to the maximum, as Gitea does. */
export function pageWindow(query: { page?: unknown; limit?: unknown }, limits: PageLimits): PageWindow {
  const page = integerAtLeast(query.page, 1) ?? 1;
  const limit = Math.min(integerAtLeast(query.limit, 1) ?? limits.defaultLimit, limits.maxLimit);
  return { page, limit, offset: (page - 1) * limit };
}

/** `?limit=50&offset=100`, as Snipe-IT does. */
export function offsetWindow(query: { limit?: unknown; offset?: unknown }, limits: PageLimits): PageWindow {
  const limit = Math.min(integerAtLeast(query.limit, 1) ?? limits.defaultLimit, limits.maxLimit);
  const offset = integerAtLeast(query.offset, 0) ?? 0;
  return { page: Math.floor(offset / limit) + 1, limit, offset };
}

/**
 * `Link` (first/prev/next/last, as GitHub and Gitea send it) and `X-Total-Count` for a page of
 * `total` items, both exposed to browser clients through CORS. `url` is the request's public URL
 * (`request.publicUrl`, built on the root URL); its other query parameters are kept. The links
 * name pages as the API's lists do: `page` and `limit`, or `offset` and `limit`.
 */
export function paginationHeaders(
  url: URL,
  window: PageWindow,
  total: number,
  style: "page" | "offset" = "page",
): Record<string, string> {
  const lastPage = Math.max(1, Math.ceil(total / window.limit));
  const link = (page: number, rel: string) => {
    const target = new URL(url);
    if (style === "page") target.searchParams.set("page", String(page));
    else target.searchParams.set("offset", String((page - 1) * window.limit));
    target.searchParams.set("limit", String(window.limit));
    return `<${target.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (window.page < lastPage) links.push(link(window.page + 1, "next"), link(lastPage, "last"));
  if (window.page > 1) links.push(link(1, "first"), link(Math.min(window.page - 1, lastPage), "prev"));
  const headers: Record<string, string> = {
    "x-total-count": String(total),
    "access-control-expose-headers": "X-Total-Count, Link",
  };
  if (links.length > 0) headers.link = links.join(",");
  return headers;
}
