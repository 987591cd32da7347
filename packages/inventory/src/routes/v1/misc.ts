import type { ApiContext } from "./context.ts";

export const SNIPE_IT_VERSION = "v8.1.4";

const BASE_URL_MESSAGE =
  "404 endpoint not found. This is the base URL for the API and does not return anything itself. Please check the API reference at https://snipe-it.readme.io/reference to find a valid API endpoint.";

export function registerMisc({ app }: ApiContext): void {
  app.get("/version", { schema: { tags: ["misc"] } }, async () => ({ version: SNIPE_IT_VERSION }));
  app.get("/", { schema: { hide: true } }, async (_request, reply) =>
    reply.status(404).send({ status: "error", message: BASE_URL_MESSAGE, payload: null }),
  );
}
