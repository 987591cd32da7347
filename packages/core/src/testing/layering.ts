import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

// The layering rule of DESIGN.md (route → service → repository): a route never writes SQL. Read
// from the source text, so the rule is checked without a database and names the offending line.

/**
 * What builds or runs a Kysely query: its statement builders, the `sql` template and its helpers,
 * the calls that run a query, and the conditions, joins and order put on one (a route that narrows
 * a query a service hands it writes SQL as surely as one that starts it).
 */
const QUERY = new RegExp(
  [
    /\b(?:selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\b/,
    /\bsql(?:<[^`]*>)?`/,
    /\bsql\.\w+\(/,
    /\.execute(?:TakeFirst(?:OrThrow)?)?\(/,
    /\.(?:where|whereRef|having|havingRef|orderBy|groupBy|(?:inner|left|right|full|cross)Join)\(/,
  ]
    .map((pattern) => pattern.source)
    .join("|"),
);

/**
 * A transaction opened around a service's calls: the service decides it, its repositories query.
 * The two calls may stand on two lines.
 */
const TRANSACTION = /\.transaction\(\)(\s*)\.execute\(/g;

export interface LayerRules {
  /** Only these files (names relative to the folder); every TypeScript file when absent. */
  files?: readonly string[];
  /** Whether opening a transaction is allowed (services open them; routes never do). */
  transactions?: boolean;
}

/**
 * Every line of a TypeScript file under `dir` (its folders included), or of the files `rules`
 * names, that builds or runs a Kysely query, as `path:line: text`, the path relative to the working
 * directory; none when they are clean.
 */
export async function kyselyQueriesUnder(dir: string, rules: LayerRules = {}): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const all = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
  // A named file that is gone would be checked by nobody: say so rather than pass.
  const missing = rules.files?.filter((name) => !all.includes(join(dir, name))) ?? [];
  if (missing.length > 0) throw new Error(`no such files under ${dir}: ${missing.join(", ")}`);
  const files = all
    .filter((file) => rules.files === undefined || rules.files.includes(relative(dir, file)))
    .sort();
  const found: string[] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8");
    // Line breaks are kept where a transaction is taken out, so the lines keep their numbers.
    const read = (rules.transactions ? text.replace(TRANSACTION, "$1") : text).split("\n");
    const lines = text.split("\n");
    read.forEach((line, index) => {
      if (QUERY.test(line))
        found.push(`${relative(process.cwd(), file)}:${index + 1}: ${lines[index].trim()}`);
    });
  }
  return found;
}
