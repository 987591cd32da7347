import assert from "node:assert/strict";
import type { Kysely } from "kysely";
import type { ForgeTables } from "../../src/schemas/tables.ts";
import { api, type Forge } from "./forge.ts";
import { makePerson, type Person } from "./people.ts";

/**
 * Who takes part in the comment, reaction and timeline tests: olive owns the public repository
 * "pub" and the private one "priv"; rita reads both and walt writes both as collaborators; ozzy
 * is outside.
 */
export type Cast = Record<"olive" | "rita" | "walt" | "ozzy", Person>;

export async function makeCast(url: string, adminToken: string, suffix = ""): Promise<Cast> {
  const cast = {} as Cast;
  for (const name of ["olive", "rita", "walt", "ozzy"] as const)
    cast[name] = await makePerson(url, adminToken, `${name}${suffix}`);
  for (const [repo, isPrivate] of [
    ["pub", false],
    ["priv", true],
  ] as const) {
    const made = await api(url, "POST", "/user/repos", {
      token: cast.olive.token,
      body: { name: repo, private: isPrivate },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    for (const [who, permission] of [
      ["rita", "read"],
      ["walt", "write"],
    ] as const) {
      const added = await api(
        url,
        "PUT",
        `/repos/${cast.olive.login}/${repo}/collaborators/${cast[who].login}`,
        {
          token: cast.olive.token,
          body: { permission },
        },
      );
      assert.equal(added.status, 204, JSON.stringify(added.body));
    }
  }
  return cast;
}

export interface IssueAnswer {
  id: number;
  number: number;
  comments: number;
  is_locked?: boolean;
}

/** Opens an issue in olive's repository `repo` as `token`'s user; its number. */
export async function openIssue(
  url: string,
  token: string,
  path: string,
  body: Record<string, unknown> = {},
): Promise<IssueAnswer> {
  const made = await api<IssueAnswer>(url, "POST", `/repos/${path}/issues`, {
    token,
    body: { title: "a question", body: "what about it?", ...body },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body;
}

/** A request whose answer may have no body at all (Gitea's bare 403s and 404s): status and text. */
export async function bare(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `token ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, text: await res.text() };
}

/** The forge's database, for what no route sets up (a locked issue, a timeline event). */
export function forgeDb(server: Forge): Kysely<ForgeTables> {
  const database = server.app.database;
  if (!database) throw new Error("no database");
  return database.db;
}

/**
 * Records a timeline event (a comment row of Gitea's CommentType `type`) on an issue, as the issue
 * service does, at `at` (now when absent); its id.
 */
export async function insertEvent(
  db: Kysely<ForgeTables>,
  issueId: number,
  posterId: number,
  type: number,
  fields: Record<string, unknown> = {},
  at = new Date(),
): Promise<number> {
  const { repo_id } = await db
    .selectFrom("issue")
    .select("repo_id")
    .where("id", "=", issueId)
    .executeTakeFirstOrThrow();
  const time = at.toISOString();
  const row = await db
    .insertInto("comment")
    .values({
      issue_id: issueId,
      repo_id,
      poster_id: posterId,
      type,
      created_at: time,
      updated_at: time,
      ...fields,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}
