import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

// The layering rule of DESIGN.md (route → service → repository): a route never writes SQL. Read
// from the source text, so the rule is checked without a database and names the offending line.

/**
 * What builds or runs a Kysely query: its statement builders, the `sql` template and its helpers,
 * and the calls that run a query.
 */
const QUERY =
  /\b(?:selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\b|\bsql(?:<[^`]*>)?`|\bsql\.\w+\(|\.execute(?:TakeFirst(?:OrThrow)?)?\(/;

/**
 * Every line of a TypeScript file under `dir` (its folders included) that builds or runs a Kysely
 * query, as `path:line: text`, the path relative to the working directory; none when it is clean.
 */
export async function kyselyQueriesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  const found: string[] = [];
  for (const file of files) {
    const lines = (await readFile(file, "utf8")).split("\n");
    lines.forEach((text, index) => {
      if (QUERY.test(text)) found.push(`${relative(process.cwd(), file)}:${index + 1}: ${text.trim()}`);
    });
  }
  return found;
}
