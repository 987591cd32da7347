import { readBool, readTime } from "@anvil/core";

// Snipe-IT's value formats in transformed objects (spec §5), with its default display settings:
// dates `Y-m-d`, times `h:i A`, money `1,234.56`.

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#039;",
};

const SPECIAL = /[&<>"']/;

/** Free text as Snipe-IT prints it: HTML-escaped (PHP's e()); null stays null. */
/**
 * Snipe-IT's web pages of each kind of row, by the activity log's item type: where the web UI lists
 * them (an import's \`redirect_url\`) and, with \`/{id}\`, shows one (the links of notifications).
 */
export const WEB_PAGES: Readonly<Record<string, string>> = {
  asset: "hardware",
  accessory: "accessories",
  consumable: "consumables",
  component: "components",
  license: "licenses",
  user: "users",
  location: "locations",
  assetmodel: "models",
};

export function escaped(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  // Most text has nothing to escape: a test is much cheaper than a replace with a callback.
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]) : text;
}

const UNESCAPES: Record<string, string> = Object.fromEntries(
  Object.entries(ESCAPES).map(([character, entity]) => [entity, character]),
);

/**
 * The text `escaped` was given, back from an API object: the web pages show API objects through
 * their templates, which escape once themselves. One pass over the five entities, so it undoes
 * exactly one `escaped` (text that held `&lt;` itself comes back as `&lt;`).
 */
export function unescaped(text: string): string {
  return text.includes("&")
    ? text.replace(/&(?:amp|lt|gt|quot|#039);/g, (entity) => UNESCAPES[entity])
    : text;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** `{datetime: "2025-05-23 19:37:00", formatted: "2025-05-23 07:37 PM"}` (UTC), or null. */
export function datetime(value: string | Date | null | undefined) {
  if (value === null || value === undefined) return null;
  const d = readTime(value);
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const hours = d.getUTCHours();
  const clock = `${pad(hours % 12 === 0 ? 12 : hours % 12)}:${pad(d.getUTCMinutes())} ${hours < 12 ? "AM" : "PM"}`;
  return {
    datetime: `${day} ${pad(hours)}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    formatted: `${day} ${clock}`,
  };
}

/** `{date: "2025-05-23", formatted: "2025-05-23"}`, or null. */
export function date(value: string | Date | null | undefined) {
  if (value === null || value === undefined || value === "") return null;
  const text = value instanceof Date ? value.toISOString().slice(0, 10) : value.slice(0, 10);
  return { date: text, formatted: text };
}

/** A timestamp as Laravel serializes a raw row: `2025-05-23T18:37:42.000000Z`. */
export function isoTimestamp(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return readTime(value)
    .toISOString()
    .replace(/\.(\d{3})Z$/, ".$1000Z");
}

// Made once: toLocaleString builds a new formatter on every call, ~0.2 ms each, which was most of
// the time an asset took to render (two amounts each).
const MONEY = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Money with two decimals and thousands separators, `1,234.50`; null when empty. */
export function money(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  const n = Number(value);
  if (!Number.isFinite(n)) return null;
  return MONEY.format(n);
}

export function bool(value: boolean | number | null | undefined): boolean {
  return value === null || value === undefined ? false : readBool(value);
}

/** A related record as `{id, name}`, or null. */
export function related(id: number | null | undefined, names: ReadonlyMap<number, string>) {
  if (id === null || id === undefined) return null;
  const name = names.get(Number(id));
  return name === undefined ? null : { id: Number(id), name: escaped(name) };
}

const SPANS: ReadonlyArray<readonly [string, number]> = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/** Carbon's diffForHumans: "1 year ago", "5 minutes ago", "3 days from now". */
export function forHumans(then: Date, now = new Date()): string {
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  const span = Math.abs(seconds);
  const [unit, size] = SPANS.find(([, size]) => span >= size) ?? ["second", 1];
  const count = Math.max(1, Math.floor(span / size));
  return `${count} ${unit}${count === 1 ? "" : "s"} ${seconds >= 0 ? "ago" : "from now"}`;
}
