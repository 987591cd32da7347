import { type AnyKysely, type HttpServer, pingDatabase } from "@anvil/core";

// Snipe-IT answers its health check at /health; /api/healthz is the name every anvil service shares.
export function registerHealth(app: HttpServer, database: { db: AnyKysely }): void {
  for (const path of ["/health", "/api/healthz"]) {
    app.get(path, async (_request, reply) => {
      const ok = await pingDatabase(database);
      return reply.status(ok ? 200 : 500).send({ status: ok ? "ok" : "error" });
    });
  }
}
