// Forge speed: API reads and clones of the forge (`anvil forge serve`, its own process) against a
// reference measured in the same run, on a seeded database of 1,000 users, 200 organizations and
// 10,000 repositories. Run with `scripts/run-node.sh bench/forge.ts`.
// Environment: BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_CONNECTIONS (32), BENCH_OUT (JSON path),
// BENCH_DATABASE (postgres://… to run on PostgreSQL; SQLite by default), BENCH_COMMITS (10000,
// history of the cloned repository), BENCH_FORGE_NODE_OPTIONS (NODE_OPTIONS of the forge process
// only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_SCENARIOS (letters of the API scenarios to
// run, e.g. "a" to profile one; all by default; n-p are the code scenarios of forge-code.ts).
// The same file also runs the two reference servers, each in a process of its own:
// `forge.ts --reference <database-url> <port>` and `forge.ts --http-backend <project-root> <port>`;
// `forge.ts --seed <data-dir> [database-url]` only seeds a data dir (and database) and keeps it (to
// profile by hand).
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  connectDatabase,
  hashPassword,
  migrate,
  OUTBOX_TABLE,
  parseDatabaseUrl,
  toStoredTime,
} from "@anvil/core";
import { freePort, waitFor } from "@anvil/core/testing";
import { type Insertable, type Selectable, sql } from "kysely";
import { gitEnvironment, repositoryPath, runGit } from "../packages/forge/src/git/index.ts";
import { migrations } from "../packages/forge/src/migrations/index.ts";
import { indexIssues } from "../packages/forge/src/repositories/issue-search.ts";
import { updateRepository } from "../packages/forge/src/repositories/repos.ts";
import { ACCOUNT_USER, type ForgeTables } from "../packages/forge/src/schemas/tables.ts";
import { createOrganization } from "../packages/forge/src/services/organizations.ts";
import { createRepository } from "../packages/forge/src/services/repositories.ts";
import { addTeamMember, createTeam } from "../packages/forge/src/services/teams.ts";
import { createToken } from "../packages/forge/src/services/tokens.ts";
import { queueRepositoryEvent } from "../packages/forge/src/services/webhook-events.ts";
import { archiveBenchmark, FILES, MERGE, mergeBenchmark, type SeededCode, seedCode } from "./forge-code.ts";
import {
  checkTarget,
  createBenchDatabase,
  hasWrk,
  insertAll,
  type LoadPlan,
  load,
  measureAlternately,
  median,
  memoryOf,
  type Running,
  type Summary,
  serveReference,
  startProcess,
  startSelf,
  summarize,
  type Target,
  type WrkMeasure,
} from "./load.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const seconds = Number(process.env.BENCH_SECONDS || 10);
const runs = Number(process.env.BENCH_RUNS || 3);
const connections = Number(process.env.BENCH_CONNECTIONS || 32);
const commits = Number(process.env.BENCH_COMMITS || 10_000);
const outFile = process.env.BENCH_OUT || path.join(root, "tmp/bench/forge.json");
const forgeNodeOptions = process.env.BENCH_FORGE_NODE_OPTIONS;
const chosenScenarios = process.env.BENCH_SCENARIOS || "abcdefghijklmnop";
const codeChosen = [..."nop"].some((letter) => chosenScenarios.includes(letter));
const issueCount = Number(process.env.BENCH_ISSUES || 100_000);

const USERS = 1000;
const ORGS = 200;
const REPOSITORIES = 10_000;
/** Repository names are two of these words and a number, so each word finds about a tenth of them. */
const WORDS = [
  "atlas",
  "beacon",
  "cobalt",
  "delta",
  "ember",
  "falcon",
  "garnet",
  "harbor",
  "indigo",
  "juniper",
  "kestrel",
  "lumen",
  "meadow",
  "nimbus",
  "onyx",
  "prairie",
  "quartz",
  "raven",
  "sierra",
  "tundra",
];
const TOKEN_USER = "user-0001";
const CLONED = { owner: TOKEN_USER, name: "big-history" };
/** The repository of the issue scenarios, with BENCH_ISSUES issues of COMMENTS_PER_ISSUE comments. */
const TRACKER = { owner: TOKEN_USER, name: "bench-issues" };
const COMMENTS_PER_ISSUE = 5;
/** The deep page of the list scenarios (of 30 issues, the default page size). */
const PAGE_DEEP = 1000;
const SYLLABLES = ["ba", "ce", "di", "fo", "gu", "ha", "ji", "ko", "lu", "ma", "ne", "pi", "ro", "su", "ti"];
/**
 * Issue titles carry three of these 225 four-letter words, so each is in about 1.3% of the
 * issues; none begins another, so a search for one finds only it.
 */
const TITLE_WORDS = SYLLABLES.flatMap((a) => SYLLABLES.map((b) => `${a}${b}`));
const SEARCH_WORDS = TITLE_WORDS.filter((_, i) => i % 11 === 0).slice(0, 20);
/** `kind/bug` is on every even issue; each issue also has one of the other five. */
const LABELS = ["kind/bug", "kind/feature", "area/api", "area/ui", "area/git", "priority/high"];
const FILTER_LABEL = LABELS[0];

interface Seeded {
  /** `/api/v1/repos/{owner}/{repo}` of every repository an anonymous caller may see. */
  repoPaths: string[];
  /** `/repository/{id}` of the same repositories, for the reference server. */
  referencePaths: string[];
  searchPaths: string[];
  orgPaths: string[];
  token: string;
  databaseSeconds: number;
  cloneRepositorySeconds: number;
  issues: SeededIssues;
  /** The code scenarios' repositories, when any of them runs. */
  code: SeededCode | undefined;
  rows: Record<string, number>;
}

interface SeededIssues {
  repoId: number;
  ownerId: number;
  /** `/api/v1/repos/{owner}/{repo}` of the tracker; its issue paths hang below it. */
  repoPath: string;
  /** Numbers of issues to ask for one by one (and for their comments). */
  numbers: number[];
  /** A token of the tracker's owner that may write issues and hooks. */
  token: string;
  seconds: number;
}

interface Scenario {
  name: string;
  target: Target;
  check: (body: unknown) => boolean;
  /** BENCH_CONNECTIONS unless set. */
  connections?: number;
}

interface ApiRow {
  scenario: string;
  connections: number;
  /** The first request; with wrk each request picks one of `paths` at random. */
  example: string;
  paths: number;
  forge: Summary;
  reference: Summary;
  /** The forge's VmHWM once this scenario's runs are done: the peak since it started. */
  forgePeakRssKb: number;
}

async function main(): Promise<void> {
  const tool = (await hasWrk()) ? "wrk" : "autocannon";
  const work = await mkdtemp(path.join(os.tmpdir(), "anvil-bench-forge-"));
  const dataDir = path.join(work, "data");
  const servers: Running[] = [];
  const admin = process.env.BENCH_DATABASE;
  let database: { url: string; drop(): Promise<void> } | undefined;
  try {
    if (admin) database = await createBenchDatabase(admin);
    const databaseUrl = database?.url ?? `sqlite:${path.join(dataDir, "forge.db")}`;
    const dialect = parseDatabaseUrl(databaseUrl).dialect;
    const loadBefore = os.loadavg();
    console.error(
      `forge bench: seeding ${dialect} (${USERS} users, ${ORGS} orgs, ${REPOSITORIES} repositories)`,
    );
    const seeded = await seed(databaseUrl, dataDir);
    console.error(
      `  seeded in ${seeded.databaseSeconds.toFixed(1)} s; ${commits}-commit repository made in ${seeded.cloneRepositorySeconds.toFixed(1)} s`,
    );
    const forgePort = await freePort();
    const forge = await startProcess(
      "forge",
      path.join(root, "bin/anvil"),
      forgePort,
      [
        "forge",
        "serve",
        "--data-dir",
        dataDir,
        "--database",
        databaseUrl,
        "--host",
        "127.0.0.1",
        "--port",
        String(forgePort),
        "--ssh-port",
        "0",
        "--log-level",
        "warn",
        // The drain scenario's receiver listens on 127.0.0.1.
        "--webhook-allowed-host-list",
        "loopback",
      ],
      forgeNodeOptions ? { NODE_OPTIONS: forgeNodeOptions } : {},
    );
    servers.push(forge);
    const reference = await startSelf(import.meta.filename, "reference", ["--reference", databaseUrl]);
    servers.push(reference);
    const backend = await startSelf(import.meta.filename, "http-backend", [
      "--http-backend",
      path.join(dataDir, "repositories"),
    ]);
    servers.push(backend);
    const forgeStartRssKb = (await memoryOf(forge.pid)).rssKb;

    const spread = tool === "wrk";
    const plan: LoadPlan = { tool, spread, work, seconds, runs };
    const auth = [`Authorization: token ${seeded.token}`];
    const scenarios: Scenario[] = [
      {
        name: "(a) GET /repos/{o}/{r}, anonymous",
        target: { base: forge.base, paths: seeded.repoPaths, headers: [] },
        check: (body) => typeof (body as { full_name?: unknown }).full_name === "string",
      },
      {
        name: "(b) GET /repos/{o}/{r}, token",
        target: { base: forge.base, paths: seeded.repoPaths, headers: auth },
        check: (body) => (body as { permissions?: { pull?: boolean } }).permissions?.pull === true,
      },
      {
        name: "(c) GET /repos/search?q=…",
        target: { base: forge.base, paths: seeded.searchPaths, headers: [] },
        check: (body) => ((body as { data?: unknown[] }).data?.length ?? 0) > 0,
      },
      {
        name: "(d) GET /orgs/{org}/repos",
        target: { base: forge.base, paths: seeded.orgPaths, headers: [] },
        check: (body) => Array.isArray(body) && body.length > 0,
      },
      ...issueScenarios(forge.base, seeded.issues),
      ...(seeded.code === undefined
        ? []
        : [
            {
              name: `(n) GET /repos/{o}/{r}/contents/{path}, a file of ${FILES.count}`,
              target: { base: forge.base, paths: seeded.code.contentPaths, headers: [] },
              check: (body: unknown) => (body as { type?: unknown }).type === "file",
            },
          ]),
    ];
    const referenceTarget: Target = { base: reference.base, paths: seeded.referencePaths, headers: [] };
    await checkTarget(referenceTarget, (body) => typeof (body as { id?: unknown }).id === "number");
    console.error(
      `  ${tool}, ${connections} connections, ${seconds} s, ${runs} run(s) per scenario and server, ${spread ? "requests spread over the paths" : "one fixed path per scenario"}`,
    );

    const api: ApiRow[] = [];
    for (const scenario of scenarios.filter((s) => chosenScenarios.includes(s.name[1]))) {
      if (scenario.target.script === undefined) await checkTarget(scenario.target, scenario.check);
      else if (tool !== "wrk") {
        console.error(`  ${scenario.name}: skipped, it needs wrk`);
        continue;
      }
      const scenarioConnections = scenario.connections ?? connections;
      const [forgeRuns, referenceRuns] = await measureAlternately(plan, scenario.name, scenarioConnections, [
        { name: "forge", target: scenario.target },
        { name: "reference", target: referenceTarget },
      ]);
      api.push({
        scenario: scenario.name,
        connections: scenarioConnections,
        example: scenario.target.paths[0],
        paths: spread ? scenario.target.paths.length : 1,
        forge: summarize(forgeRuns),
        reference: summarize(referenceRuns),
        forgePeakRssKb: (await memoryOf(forge.pid)).hwmKb,
      });
    }

    const drain = chosenScenarios.includes("m")
      ? await webhookDrain(
          plan,
          databaseUrl,
          forge,
          seeded.issues,
          issueScenarios(forge.base, seeded.issues)[4],
        )
      : undefined;
    const clone = await cloneBenchmark(work, forge, backend);
    const storage = { root: path.join(dataDir, "repositories") };
    const code = seeded.code;
    const archive =
      code && chosenScenarios.includes("o")
        ? await archiveBenchmark(forge, storage, code.owner, runs)
        : undefined;
    const merge =
      code && chosenScenarios.includes("p") ? await mergeBenchmark(forge, storage, work, code) : undefined;
    const result = {
      date: new Date().toISOString(),
      tool,
      database: dialect,
      connections,
      seconds,
      runs,
      cpus: os.availableParallelism(),
      loadAverageBefore: loadBefore,
      seeding: {
        databaseSeconds: seeded.databaseSeconds,
        cloneRepositorySeconds: seeded.cloneRepositorySeconds,
        rows: seeded.rows,
      },
      forgeStartRssKb,
      api,
      drain,
      clone,
      archive,
      merge,
    };
    console.log(report(result));
    await mkdir(path.dirname(outFile), { recursive: true });
    await writeFile(outFile, `${JSON.stringify(result, null, 2)}\n`);
    console.error(`written to ${outFile}`);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Seeds a data dir (and the database at `databaseUrl`, the dir's SQLite file by default) and keeps
 * them, for profiling a server by hand; prints the token and one path.
 */
async function seedOnly(
  dataDir: string,
  databaseUrl = `sqlite:${path.join(dataDir, "forge.db")}`,
): Promise<void> {
  const seeded = await seed(databaseUrl, dataDir);
  console.log(JSON.stringify({ token: seeded.token, example: seeded.repoPaths[0] }));
}

// --- seeding -------------------------------------------------------------------------------------

/** What git needs to see a bare repository: HEAD naming a branch, objects/ and refs/. */
async function writeBareLayout(repoPath: string): Promise<void> {
  await mkdir(path.join(repoPath, "objects"), { recursive: true });
  await mkdir(path.join(repoPath, "refs", "heads"), { recursive: true });
  await writeFile(path.join(repoPath, "HEAD"), "ref: refs/heads/main\n");
}

/**
 * Fills a migrated database: users, repositories, collaborations and topics by bulk inserts (one
 * transaction each), organizations, teams and the token through the forge's services (their rows
 * are what the forge itself would write), and one repository with a long history, made on disk.
 */
async function seed(databaseUrl: string, dataDir: string): Promise<Seeded> {
  const started = performance.now();
  const database = await connectDatabase<ForgeTables>(databaseUrl);
  try {
    await migrate(database.db, "forge", migrations);
    const now = toStoredTime(new Date(), database.dialect);
    // One scrypt hash for all: hashing a thousand passwords would take most of a minute.
    const passwordHash = await hashPassword("bench-password");
    const userNames = Array.from({ length: USERS }, (_, i) => `user-${String(i + 1).padStart(4, "0")}`);
    await database.db.transaction().execute((trx) =>
      insertAll(
        trx,
        "account",
        userNames.map((name) => ({
          type: ACCOUNT_USER,
          name,
          lower_name: name,
          full_name: `Bench ${name}`,
          email: `${name}@example.com`,
          lower_email: `${name}@example.com`,
          password_hash: passwordHash,
          created_at: now,
          updated_at: now,
        })),
      ),
    );
    const users = await database.db
      .selectFrom("account")
      .selectAll()
      .where("type", "=", ACCOUNT_USER)
      .orderBy("id")
      .execute();
    const tokenUser = users[0];

    // Each organization: an owner, a Developers team reaching all its repositories with four
    // members, and the token's user in one of every ten; one in ten is `limited`, which hides it
    // and its repositories from anonymous callers.
    const orgs: { id: number; name: string; visibility: string }[] = [];
    for (let j = 0; j < ORGS; j++) {
      const name = `org-${String(j + 1).padStart(3, "0")}`;
      const visibility = j % 10 === 9 ? "limited" : "public";
      const org = await createOrganization(database, users[(j * 5 + 1) % USERS], {
        username: name,
        visibility,
      });
      const team = await createTeam(database, org, {
        name: "Developers",
        permission: "write",
        units: ["repo.code", "repo.issues", "repo.pulls", "repo.releases"],
        includes_all_repositories: true,
      });
      const members = [2, 3, 4, 5].map((k) => users[(j * 5 + k) % USERS]);
      if (j % 10 === 0) members.push(tokenUser);
      for (const member of members) await addTeamMember(database, team, member);
      orgs.push({ id: org.id, name, visibility });
    }

    // Half the repositories belong to organizations (25 each), half to users (5 each); one in
    // five is private.
    const owners = new Map<number, { name: string; visible: boolean }>([
      ...users.map((u) => [u.id, { name: u.name, visible: true }] as const),
      ...orgs.map((o) => [o.id, { name: o.name, visible: o.visibility === "public" }] as const),
    ]);
    const half = REPOSITORIES / 2;
    await database.db.transaction().execute((trx) =>
      insertAll(
        trx,
        "repository",
        Array.from({ length: REPOSITORIES }, (_, i) => {
          const name = `${WORDS[i % WORDS.length]}-${WORDS[(i * 7 + 3) % WORDS.length]}-${i + 1}`;
          // The repository's place among its owner's, so that every owner has some private ones.
          const nth = i < half ? Math.floor(i / ORGS) : Math.floor((i - half) / USERS);
          return {
            owner_id: i < half ? orgs[i % ORGS].id : users[(i - half) % USERS].id,
            name,
            lower_name: name,
            description: `The ${WORDS[(i * 3) % WORDS.length]} service, part ${i + 1}`,
            default_branch: "main",
            is_empty: false,
            is_private: nth % 5 === 4,
            created_at: now,
            updated_at: now,
          };
        }),
      ),
    );
    const repositories = await database.db
      .selectFrom("repository")
      .select(["id", "owner_id", "name", "is_private"])
      .orderBy("id")
      .execute();
    // The token's user collaborates on one repository in 97; one in three has another collaborator.
    const collaborations = new Map<string, Insertable<ForgeTables["collaboration"]>>();
    repositories.forEach((repository, i) => {
      const add = (accountId: number, mode: number) => {
        if (accountId !== repository.owner_id)
          collaborations.set(`${repository.id}/${accountId}`, {
            repo_id: repository.id,
            account_id: accountId,
            mode,
          });
      };
      if (i % 97 === 0) add(tokenUser.id, 2);
      if (i % 3 === 0) add(users[1 + ((i * 13) % (USERS - 1))].id, 1);
    });
    await database.db.transaction().execute(async (trx) => {
      await insertAll(trx, "collaboration", [...collaborations.values()]);
      await insertAll(
        trx,
        "repo_topic",
        repositories
          .filter((_, i) => i % 2 === 0)
          .flatMap((repository, i) => [
            { repo_id: repository.id, name: WORDS[i % WORDS.length] },
            { repo_id: repository.id, name: "bench" },
          ]),
      );
    });
    const { secret } = await createToken(database, tokenUser, {
      name: "bench",
      scopes: ["read:repository", "read:organization", "read:user"],
    });
    const storage = { root: path.join(dataDir, "repositories") };
    // The forge checks at start-up that every row has its bare repository (and makes an empty one
    // where none is), so each seeded row gets git's minimal layout on disk.
    for (let i = 0; i < repositories.length; i += 200) {
      await Promise.all(
        repositories.slice(i, i + 200).map((repository) => {
          const owner = owners.get(repository.owner_id)?.name ?? "";
          return writeBareLayout(repositoryPath(storage.root, owner, repository.name));
        }),
      );
    }
    const issues = await seedIssues(database, storage, tokenUser, users);
    // One merge more than the runs: the first warms up.
    const code = codeChosen ? await seedCode(database, storage, tokenUser, runs + 1) : undefined;
    // What autovacuum does soon after such a load on PostgreSQL: statistics for the planner (a
    // label's list was planned as a walk of every issue without them: 36 req/s against 368) and
    // the visibility map that lets it answer from an index alone.
    if (database.dialect === "postgres") await sql`vacuum analyze`.execute(database.db);
    const databaseSeconds = (performance.now() - started) / 1000;

    const historyStarted = performance.now();
    const big = await createRepository(database, storage, tokenUser, tokenUser, {
      name: CLONED.name,
      description: `${commits} commits`,
    });
    await writeHistory(repositoryPath(storage.root, CLONED.owner, CLONED.name), commits);
    await updateRepository(database.db, big.id, { is_empty: false });
    const cloneRepositorySeconds = (performance.now() - historyStarted) / 1000;

    const visible = repositories.filter((r) => !r.is_private && owners.get(r.owner_id)?.visible);
    const counts: Record<string, number> = {};
    for (const table of [
      "account",
      "repository",
      "org_user",
      "team",
      "team_user",
      "collaboration",
      "repo_topic",
      "issue",
      "issue_label",
      "comment",
    ] as const) {
      const row = await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    return {
      repoPaths: visible.map((r) => `/api/v1/repos/${owners.get(r.owner_id)?.name}/${r.name}`),
      referencePaths: visible.map((r) => `/repository/${r.id}`),
      searchPaths: WORDS.map((word) => `/api/v1/repos/search?q=${word}`),
      orgPaths: orgs.filter((o) => o.visibility === "public").map((o) => `/api/v1/orgs/${o.name}/repos`),
      token: secret,
      databaseSeconds,
      cloneRepositorySeconds,
      issues,
      code,
      rows: counts,
    };
  } finally {
    await database.close();
  }
}

/**
 * The tracker: a repository made by the forge's createRepository with `issueCount` issues (a
 * fifth closed), each with labels and COMMENTS_PER_ISSUE comments. The services would take
 * minutes for 600,000 rows, so the rows go in by bulk inserts through the repository layer's
 * tables, kept as the services keep them: the repository's number counter and open/closed counts,
 * each issue's comment count and last update, the comments as its timeline, and the text index
 * (through the same `indexIssues` the services call).
 */
async function seedIssues(
  database: Awaited<ReturnType<typeof connectDatabase<ForgeTables>>>,
  storage: { root: string },
  owner: Selectable<ForgeTables["account"]>,
  users: Selectable<ForgeTables["account"]>[],
): Promise<SeededIssues> {
  const started = performance.now();
  const repository = await createRepository(database, storage, owner, owner, {
    name: TRACKER.name,
    description: "issues for the bench",
  });
  const minute = 60_000;
  const first = Date.now() - (issueCount + COMMENTS_PER_ISSUE + 10) * minute;
  const time = (ms: number) => toStoredTime(new Date(ms), database.dialect);
  const word = (n: number) => TITLE_WORDS[n % TITLE_WORDS.length];
  let closed = 0;
  await database.db.transaction().execute(async (trx) => {
    const labels = await trx
      .insertInto("label")
      .values(
        LABELS.map((name, i) => ({
          repo_id: repository.id,
          name,
          color: ["ee0701", "84b6eb", "0052cc", "fbca04", "5319e7", "b60205"][i],
          created_at: time(first),
          updated_at: time(first),
        })),
      )
      .returning("id")
      .execute();
    for (let start = 0; start < issueCount; start += 10_000) {
      const rows = Array.from({ length: Math.min(10_000, issueCount - start) }, (_, k) => {
        const number = start + k + 1;
        const created = first + number * minute;
        const isClosed = number % 5 === 0;
        if (isClosed) closed++;
        const updated = created + COMMENTS_PER_ISSUE * minute;
        return {
          repo_id: repository.id,
          number,
          poster_id: users[number % 50].id,
          title: `${word(number)} ${word(number * 7 + 3)} ${word(number * 13 + 5)}: request ${number} fails`,
          body: `Steps: open the ${LABELS[(number % 5) + 1]} page and save twice. Expected the change to stay; it was lost after a reload. Seen on build ${number % 97}.`,
          is_closed: isClosed,
          num_comments: COMMENTS_PER_ISSUE,
          created_at: time(created),
          updated_at: time(updated),
          closed_at: isClosed ? time(updated) : null,
        };
      });
      const inserted: { id: number; title: string; body: string }[] = [];
      for (let i = 0; i < rows.length; i += 400)
        inserted.push(
          ...(await trx
            .insertInto("issue")
            .values(rows.slice(i, i + 400))
            .returning(["id", "title", "body"])
            .execute()),
        );
      await indexIssues(trx, inserted);
    }
    await sql`insert into issue_label (issue_id, label_id)
      select id, ${labels[0].id} from issue where repo_id = ${repository.id} and number % 2 = 0`.execute(trx);
    for (let k = 1; k < LABELS.length; k++)
      await sql`insert into issue_label (issue_id, label_id)
        select id, ${labels[k].id} from issue where repo_id = ${repository.id} and number % 5 = ${k - 1}`.execute(
        trx,
      );
    // Comment k of an issue comes k minutes after it, by its poster; type 0, a plain comment.
    const commentTime =
      database.dialect === "sqlite"
        ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', issue.created_at, '+' || k.k || ' minutes')`
        : sql`issue.created_at + k.k * interval '1 minute'`;
    await sql`with k(k) as (values ${sql.join(
      Array.from({ length: COMMENTS_PER_ISSUE }, (_, i) => sql`(${sql.lit(i + 1)})`),
    )})
      insert into comment (issue_id, repo_id, poster_id, type, body, created_at, updated_at)
      select issue.id, issue.repo_id, issue.poster_id, 0,
        'Comment ' || k.k || ' on #' || issue.number || ': tried it again on a clean checkout, same result.',
        ${commentTime}, ${commentTime}
      from issue cross join k where issue.repo_id = ${repository.id}`.execute(trx);
    await trx
      .updateTable("repository")
      .set({ last_issue_index: issueCount, num_issues: issueCount, num_closed_issues: closed })
      .where("id", "=", repository.id)
      .execute();
  });
  const { secret } = await createToken(database, owner, {
    name: "bench-issues",
    scopes: ["write:issue", "write:repository"],
  });
  return {
    repoId: repository.id,
    ownerId: owner.id,
    repoPath: `/api/v1/repos/${TRACKER.owner}/${TRACKER.name}`,
    numbers: Array.from(
      { length: Math.min(issueCount, 10_000) },
      (_, i) => 1 + Math.floor((i * issueCount) / 10_000),
    ),
    token: secret,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * A linear history of `count` commits on `main`, each changing one of 650 files of 30 lines, fed
 * to `git fast-import` in one stream, then packed as a served repository would be (`git gc`).
 */
async function writeHistory(repoPath: string, count: number): Promise<void> {
  const start = Date.UTC(2024, 0, 1) / 1000;
  const parts: string[] = [];
  for (let i = 1; i <= count; i++) {
    const file = `src/module-${i % 50}/part-${i % 13}.txt`;
    const revision = Math.floor(i / 650);
    const lines = Array.from(
      { length: 30 },
      (_, line) =>
        `${file} line ${line}: ${line === i % 30 ? `changed in revision ${revision} of commit ${i}` : "unchanged text of the module"}`,
    );
    const content = `${lines.join("\n")}\n`;
    const message = `Change ${i}: update ${file}\n`;
    const when = `${start + i * 600} +0000`;
    parts.push(
      `commit refs/heads/main\nmark :${i}\n`,
      `author Bench Author <author@example.com> ${when}\ncommitter Bench Author <author@example.com> ${when}\n`,
      `data ${Buffer.byteLength(message)}\n${message}`,
      i > 1 ? `from :${i - 1}\n` : "",
      `M 100644 inline ${file}\ndata ${Buffer.byteLength(content)}\n${content}\n`,
    );
  }
  await runGit([`--git-dir=${repoPath}`, "fast-import", "--quiet"], { input: parts.join("") });
  await runGit([`--git-dir=${repoPath}`, "gc", "--quiet"]);
}

// --- clone ---------------------------------------------------------------------------------------

/**
 * `git clone --bare` of the long-history repository from the forge and from `git http-backend`
 * (the same files on disk), alternating after one unrecorded clone of each, timed from start to
 * exit; each clone's main branch is checked against the original.
 */
async function cloneBenchmark(work: string, forge: Running, backend: Running) {
  const repoPath = `/${CLONED.owner}/${CLONED.name}.git`;
  const client = { ...gitEnvironment(), HOME: work };
  const { stdout: expected } = await run(
    "git",
    ["ls-remote", `${forge.base}${repoPath}`, "refs/heads/main"],
    {
      env: client,
    },
  );
  const cloneOnce = async (server: Running): Promise<number> => {
    const destination = path.join(work, `clone-${server.name}.git`);
    const started = performance.now();
    await run("git", ["clone", "--bare", "--quiet", `${server.base}${repoPath}`, destination], {
      env: client,
      timeout: 600_000,
    });
    const elapsed = (performance.now() - started) / 1000;
    const { stdout: head } = await run("git", [`--git-dir=${destination}`, "rev-parse", "refs/heads/main"], {
      env: client,
    });
    if (!expected.startsWith(head.trim()))
      throw new Error(`${server.name}'s clone has main at ${head.trim()}, expected ${expected}`);
    await rm(destination, { recursive: true, force: true });
    return elapsed;
  };
  const before = await memoryOf(forge.pid);
  await cloneOnce(forge);
  await cloneOnce(backend);
  const times = new Map<string, number[]>([
    ["forge", []],
    ["http-backend", []],
  ]);
  for (let i = 0; i < runs; i++) {
    for (const server of [forge, backend]) {
      const elapsed = await cloneOnce(server);
      times.get(server.name)?.push(elapsed);
      console.error(`  clone ${server.name} run ${i + 1}: ${elapsed.toFixed(2)} s`);
    }
  }
  const after = await memoryOf(forge.pid);
  const forgeTimes = times.get("forge") ?? [];
  const backendTimes = times.get("http-backend") ?? [];
  return {
    commits,
    forgeSeconds: median(forgeTimes),
    httpBackendSeconds: median(backendTimes),
    forgeRuns: forgeTimes,
    httpBackendRuns: backendTimes,
    forgeRssBeforeKb: before.rssKb,
    forgePeakRssBeforeKb: before.hwmKb,
    forgeRssAfterKb: after.rssKb,
    forgePeakRssAfterKb: after.hwmKb,
  };
}

// --- the issue scenarios -------------------------------------------------------------------------

/** Lists, one issue, its comments and a search, anonymous (the tracker is public); creation with a token. */
function issueScenarios(base: string, issues: SeededIssues): Scenario[] {
  const list = (paths: string[], headers: string[] = []): Target => ({ base, paths, headers });
  const page = (body: unknown) => Array.isArray(body) && body.length > 0;
  const label = `labels=${encodeURIComponent(FILTER_LABEL)}`;
  return [
    {
      name: "(e) GET /repos/{o}/{r}/issues, page 1",
      target: list([`${issues.repoPath}/issues?page=1`]),
      check: page,
    },
    {
      name: `(f) GET /repos/{o}/{r}/issues, page ${PAGE_DEEP}`,
      target: list([`${issues.repoPath}/issues?page=${PAGE_DEEP}`]),
      check: page,
    },
    {
      name: "(g) GET /repos/{o}/{r}/issues?labels=, page 1",
      target: list([`${issues.repoPath}/issues?${label}&page=1`]),
      check: page,
    },
    {
      name: `(h) GET /repos/{o}/{r}/issues?labels=, page ${PAGE_DEEP}`,
      target: list([`${issues.repoPath}/issues?${label}&page=${PAGE_DEEP}`]),
      check: page,
    },
    {
      name: "(i) GET /repos/{o}/{r}/issues/{n}",
      target: list(issues.numbers.map((n) => `${issues.repoPath}/issues/${n}`)),
      check: (body) => typeof (body as { number?: unknown }).number === "number",
    },
    {
      name: "(j) GET /repos/{o}/{r}/issues/{n}/comments",
      target: list(issues.numbers.map((n) => `${issues.repoPath}/issues/${n}/comments`)),
      check: (body) => Array.isArray(body) && body.length === COMMENTS_PER_ISSUE,
    },
    {
      name: "(k) POST /repos/{o}/{r}/issues",
      target: {
        ...list([`${issues.repoPath}/issues`], [`Authorization: token ${issues.token}`]),
        script: createIssueScript(`${issues.repoPath}/issues`),
      },
      check: () => true,
    },
    {
      name: "(l) GET /repos/issues/search?q=…, 4 connections",
      target: list(SEARCH_WORDS.map((word) => `/api/v1/repos/issues/search?q=${word}`)),
      check: page,
      connections: 4,
    },
  ];
}

/** wrk's script for issue creation: a new title each request; an answer other than 201 is a failure. */
function createIssueScript(issuesPath: string): string {
  return `
local made = 0
local threads = {}
function setup(thread)
  thread:set("thread", made)
  made = made + 1
  table.insert(threads, thread)
end

function init(args)
  step = 0
  failures = 0
  posted = {}
  for name, value in pairs(wrk.headers) do posted[name] = value end
  posted["Content-Type"] = "application/json"
end

function request()
  step = step + 1
  local body = '{"title":"bench issue ' .. thread .. '-' .. step .. '","body":"made by the bench"}'
  return wrk.format("POST", ${JSON.stringify(issuesPath)}, posted, body)
end

function response(status, headers, body)
  if status ~= 201 then failures = failures + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("failures") end
  io.write("failures " .. total .. "\\n")
end
`;
}

// --- webhook drain -------------------------------------------------------------------------------

const DELIVERIES = 1000;

/**
 * (m) 1,000 webhook deliveries to a receiver in this process, and what they cost the API: a
 * repository hook on the tracker (made through the API, `issues` events) to a node:http server
 * answering 200; the 1,000 `issues` events are queued in one transaction by the forge's own
 * queueRepositoryEvent from this process (as a second forge process on the database would), so
 * the forge's workers find them at their next poll and drain them while wrk loads `sample` (one
 * issue, 32 connections). Each run under the drain alternates with one of the same load without
 * deliveries; the drain rate is the receiver's: 999 over the time from the first delivery to the
 * last.
 */
async function webhookDrain(
  plan: LoadPlan,
  databaseUrl: string,
  forge: Running,
  issues: SeededIssues,
  sample: Scenario,
) {
  const arrivals: number[] = [];
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      arrivals.push(performance.now());
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as { port: number }).port;
  const database = await connectDatabase<ForgeTables>(databaseUrl);
  try {
    const created = await fetch(`${forge.base}${issues.repoPath}/hooks`, {
      method: "POST",
      headers: { authorization: `token ${issues.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        type: "gitea",
        config: { url: `http://127.0.0.1:${port}/hook`, content_type: "json" },
        events: ["issues"],
        active: true,
      }),
    });
    if (created.status !== 201)
      throw new Error(`hook creation answered ${created.status} ${await created.text()}`);
    const hook = (await created.json()) as { id: number };
    // Its ping first, so that no run counts it.
    await waitFor("the hook's ping", async () => arrivals.length >= 1 || undefined, 10_000);
    // Before each run the bench process commits 1,000 deliveries in one transaction, as a second
    // forge process would: before a run under the drain they are due a second into it; before a
    // run without, they are written as already delivered. A large commit by another connection
    // slows a SQLite reader's next seconds by itself (~30% fewer requests here, the same with 8 MB
    // written to an unrelated table), so both runs carry it and the drain is what differs. The
    // payloads are rendered before the run: that belongs to the requests raising the events ((k)).
    const queue = (due: boolean) =>
      database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < DELIVERIES; i++)
          await queueRepositoryEvent(trx, {
            repoId: issues.repoId,
            senderId: issues.ownerId,
            type: "issues",
            fields: { action: "opened", number: issues.numbers[i % issues.numbers.length] },
          });
        const change = due
          ? sql`next_attempt_at = ${toStoredTime(new Date(Date.now() + 1000), database.dialect)}`
          : sql`status = 'delivered'`;
        await sql`update ${sql.table(OUTBOX_TABLE)} set ${change} where status = 'pending'`.execute(trx);
      });
    const quiet: WrkMeasure[] = [];
    const busy: WrkMeasure[] = [];
    const rates: number[] = [];
    await load(plan, sample.target, connections, Math.min(plan.seconds, 3));
    for (let i = 0; i < plan.runs; i++) {
      await queue(false);
      quiet.push(await load(plan, sample.target, connections, plan.seconds));
      arrivals.length = 0;
      await queue(true);
      // Due a second into the run; workers poll every 2 s, so the whole drain falls inside it.
      const measure = await load(plan, sample.target, connections, plan.seconds);
      busy.push(measure);
      await waitFor(
        `${DELIVERIES} deliveries`,
        async () => arrivals.length >= DELIVERIES || undefined,
        120_000,
      );
      const rate = (DELIVERIES - 1) / (((arrivals.at(-1) ?? 0) - arrivals[0]) / 1000);
      rates.push(rate);
      console.error(
        `  (m) run ${i + 1}: ${Math.round(rate)} deliveries/s; API p99 ${quiet.at(-1)?.p99Ms} ms without, ${measure.p99Ms} ms during`,
      );
    }
    await fetch(`${forge.base}${issues.repoPath}/hooks/${hook.id}`, {
      method: "DELETE",
      headers: { authorization: `token ${issues.token}` },
    });
    return {
      deliveries: DELIVERIES,
      ratePerSecond: median(rates),
      rates: rates.map(Math.round),
      quiet: summarize(quiet),
      busy: summarize(busy),
      forgePeakRssKb: (await memoryOf(forge.pid)).hwmKb,
    };
  } finally {
    await database.close();
    receiver.close();
  }
}

// --- report --------------------------------------------------------------------------------------

function report(result: {
  tool: string;
  database: string;
  seeding: { databaseSeconds: number; cloneRepositorySeconds: number };
  forgeStartRssKb: number;
  api: ApiRow[];
  drain: Awaited<ReturnType<typeof webhookDrain>> | undefined;
  clone: Awaited<ReturnType<typeof cloneBenchmark>>;
  archive: Awaited<ReturnType<typeof archiveBenchmark>> | undefined;
  merge: Awaited<ReturnType<typeof mergeBenchmark>> | undefined;
}): string {
  const rate = (n: number) => Math.round(n).toLocaleString("en-US");
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
  const spread = result.api[0]?.paths > 1;
  const lines = [
    `database: ${result.database}; seeding ${result.seeding.databaseSeconds.toFixed(1)} s, ${commits}-commit repository ${result.seeding.cloneRepositorySeconds.toFixed(1)} s; ${result.tool}, ${connections} connections, ${seconds} s x ${runs} runs, medians; ${spread ? "each request picks one of the scenario's paths at random" : "one fixed path per scenario"}; forge RSS after start ${mb(result.forgeStartRssKb)}`,
    "",
    "| scenario | conns | paths | forge req/s | reference req/s | ratio (forge/reference) | forge p99 | reference p99 | forge errors | forge peak RSS |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of result.api) {
    const ratio = (row.forge.requestsPerSecond / row.reference.requestsPerSecond).toFixed(2);
    lines.push(
      `| ${row.scenario} | ${row.connections} | ${rate(row.paths)} | ${rate(row.forge.requestsPerSecond)} | ${rate(row.reference.requestsPerSecond)} | ${ratio} | ${ms(row.forge.p99Ms)} | ${ms(row.reference.p99Ms)} | ${row.forge.errors} | ${mb(row.forgePeakRssKb)} |`,
    );
  }
  const met = (yes: boolean) => (yes ? "met" : "NOT met");
  const byLetter = new Map(result.api.map((row) => [row.scenario[1], row]));
  const ratioOf = (row: ApiRow) => row.forge.requestsPerSecond / row.reference.requestsPerSecond;
  const single = byLetter.get("a");
  if (single)
    lines.push(
      "",
      `Goal single-repo GET >= 0.5x the reference: ${ratioOf(single).toFixed(2)}x, ${met(ratioOf(single) >= 0.5)}.`,
    );
  const issueReads = [..."efghij"].flatMap((letter) => byLetter.get(letter) ?? []);
  if (issueReads.length > 0) {
    const lowest = Math.min(...issueReads.map(ratioOf));
    lines.push(
      `Goal issue reads >= 0.3x the reference: lowest ${lowest.toFixed(2)}x, ${met(lowest >= 0.3)}.`,
    );
  }
  for (const [shallow, deep] of [
    ["e", "f"],
    ["g", "h"],
  ]) {
    const first = byLetter.get(shallow);
    const far = byLetter.get(deep);
    if (!first || !far) continue;
    // Slower means fewer requests a second: page 1's rate over the deep page's.
    const slower = first.forge.requestsPerSecond / far.forge.requestsPerSecond;
    lines.push(
      `Goal page ${PAGE_DEEP} within 1.2x of page 1 (${shallow}/${deep}): ${slower.toFixed(2)}x, ${met(slower <= 1.2)}.`,
    );
  }
  const contents = byLetter.get("n");
  if (contents)
    lines.push(
      `Goal a file's contents >= 0.3x the reference: ${ratioOf(contents).toFixed(2)}x, ${met(ratioOf(contents) >= 0.3)}.`,
    );
  const search = byLetter.get("l");
  if (search)
    lines.push(
      `Goal issue search p99 < 20 ms at 4 connections: ${ms(search.forge.p99Ms)}, ${met(search.forge.p99Ms < 20)}.`,
    );
  const drain = result.drain;
  if (drain) {
    const raised = drain.busy.p99Ms / drain.quiet.p99Ms - 1;
    lines.push(
      "",
      "| webhook drain | deliveries/s | API req/s without / during | API p99 without / during | forge peak RSS |",
      "|---|---:|---:|---:|---:|",
      `| (m) ${drain.deliveries} deliveries, GET one issue at ${connections} connections | ${rate(drain.ratePerSecond)} | ${rate(drain.quiet.requestsPerSecond)} / ${rate(drain.busy.requestsPerSecond)} | ${ms(drain.quiet.p99Ms)} / ${ms(drain.busy.p99Ms)} | ${mb(drain.forgePeakRssKb)} |`,
      "",
      `Goal ${drain.deliveries} deliveries at >= 500/s: ${rate(drain.ratePerSecond)}/s, ${met(drain.ratePerSecond >= 500)}; API p99 raised by <= 20%: ${(raised * 100).toFixed(0)}%, ${met(raised <= 0.2)}.`,
    );
  }
  const clone = result.clone;
  const cloneRatio = clone.forgeSeconds / clone.httpBackendSeconds;
  lines.push(
    "",
    "| clone | forge | git http-backend | ratio (forge/http-backend) | forge RSS before / after | forge peak RSS before / after |",
    "|---|---:|---:|---:|---:|---:|",
    `| git clone --bare, ${rate(clone.commits)} commits | ${clone.forgeSeconds.toFixed(2)} s | ${clone.httpBackendSeconds.toFixed(2)} s | ${cloneRatio.toFixed(2)} | ${mb(clone.forgeRssBeforeKb)} / ${mb(clone.forgeRssAfterKb)} | ${mb(clone.forgePeakRssBeforeKb)} / ${mb(clone.forgePeakRssAfterKb)} |`,
    "",
    `Goal clone <= 1.2x git http-backend: ${cloneRatio.toFixed(2)}x, ${cloneRatio <= 1.2 ? "met" : "NOT met"}.`,
  );
  const { archive, merge } = result;
  if (archive || merge)
    lines.push(
      "",
      "| code | forge | git run directly | ratio | forge peak RSS before / after |",
      "|---|---:|---:|---:|---:|",
    );
  if (archive)
    lines.push(
      `| (o) /archive/main.tar.gz, ${rate(archive.files)} files (${Math.round(archive.forgeBytes / 1024)} KB) | ${ms(archive.forgeMs)} | ${ms(archive.gitArchiveMs)} (git archive) | ${(archive.forgeMs / archive.gitArchiveMs).toFixed(2)} | ${mb(archive.forgePeakRssBeforeKb)} / ${mb(archive.forgePeakRssAfterKb)} |`,
    );
  if (merge)
    lines.push(
      `| (p) merge a pull request ${rate(MERGE.ahead)} commits ahead | ${ms(merge.forgeMs)} | ${ms(merge.gitMergeMs)} (git merge in a clone) | ${(merge.forgeMs / merge.gitMergeMs).toFixed(2)} | |`,
    );
  if (archive) {
    const ratio = archive.forgeMs / archive.gitArchiveMs;
    lines.push("", `Goal archive within 1.2x of git archive: ${ratio.toFixed(2)}x, ${met(ratio <= 1.2)}.`);
  }
  if (merge) {
    const ratio = merge.forgeMs / merge.gitMergeMs;
    lines.push(`Goal merge within 1.5x of git merge: ${ratio.toFixed(2)}x, ${met(ratio <= 1.5)}.`);
  }
  return lines.join("\n");
}

// --- the reference for clones (the one for API reads is load.ts's serveReference) ----------------

/**
 * git's own smart HTTP server: `git http-backend` run as a CGI program, one per request, behind a
 * minimal node:http server, as a web server would run it. The request body streams to its stdin;
 * its stdout is a CGI response (header lines, a blank line, the body).
 */
async function serveHttpBackend(projectRoot: string, port: number): Promise<void> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    // The same isolated git environment the forge runs git with, so neither reads other config.
    const env: Record<string, string> = {
      ...gitEnvironment(),
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      GATEWAY_INTERFACE: "CGI/1.1",
      SERVER_PROTOCOL: `HTTP/${request.httpVersion}`,
      REQUEST_METHOD: request.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REMOTE_ADDR: request.socket.remoteAddress ?? "",
    };
    if (request.headers["content-type"]) env.CONTENT_TYPE = request.headers["content-type"];
    if (request.headers["content-length"]) env.CONTENT_LENGTH = request.headers["content-length"];
    // Every request header as HTTP_*: http-backend reads HTTP_CONTENT_ENCODING (gzip) and
    // HTTP_GIT_PROTOCOL (protocol v2) from there.
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined)
        env[`HTTP_${name.toUpperCase().replaceAll("-", "_")}`] = Array.isArray(value)
          ? value.join(", ")
          : value;
    }
    const cgi = spawn("git", ["http-backend"], { env, cwd: "/", stdio: ["pipe", "pipe", "ignore"] });
    const fail = () => {
      if (!response.headersSent) response.writeHead(502).end();
      else response.destroy();
    };
    cgi.on("error", fail);
    cgi.stdin.on("error", () => {});
    request.pipe(cgi.stdin);
    response.on("close", () => {
      if (!response.writableFinished) cgi.kill();
    });
    let head = Buffer.alloc(0);
    const readHead = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      // http-backend ends its header lines with CRLF.
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      cgi.stdout.off("data", readHead);
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      response.write(head.subarray(end + 4));
      cgi.stdout.pipe(response);
    };
    cgi.stdout.on("data", readHead);
    cgi.stdout.on("end", () => {
      if (!response.headersSent) fail();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
}

const [role, where, port] = process.argv.slice(2);
if (role === "--reference") await serveReference(where, "repository", Number(port));
else if (role === "--http-backend") await serveHttpBackend(where, Number(port));
else if (role === "--seed") await seedOnly(where, port);
else await main();
