import { type AnyKysely, type HttpServer, pingDatabase } from "@anvil/core";

// Gitea's /api/healthz: {status, description, checks}, 200 when every check passes, 500 otherwise.
export function registerHealth(app: HttpServer, database: { db: AnyKysely }): void {
  app.get("/api/healthz", async (_request, reply) => {
    const time = new Date().toISOString();
    const databaseOk = await pingDatabase(database);
    const status = databaseOk ? "pass" : "fail";
    reply.header("cache-control", "no-store");
    return reply.status(databaseOk ? 200 : 500).send({
      status,
      description: "anvil forge",
      checks: { "database:ping": [{ status, time }] },
    });
  });
}
