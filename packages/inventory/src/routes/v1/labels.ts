import type { AnyKysely } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { readSettings } from "../../repositories/settings.ts";
import { ASSET_NOT_FOUND } from "../../resources/assets.ts";
import {
  findTemplate,
  LABEL_NOT_FOUND,
  LABEL_TEMPLATES,
  labelAssets,
  labelsPdf,
  MAX_LABELS,
  presentTemplate,
} from "../../services/labels.ts";
import { listParams } from "../../services/listing.ts";
import { type ApiContext, authorized, permitted, sendList, success } from "./context.ts";
import { bodyOf } from "./hardware.ts";
import { ListQuery } from "./resource.ts";

// Label templates (Snipe-IT 7's /labels) and the labels PDF of some assets (POST /hardware/labels,
// spec §7.1). Templates describe assets' labels, so reading them asks what reading assets asks.

const NOTHING_NAMED = "Either asset_tags or asset_ids are required";
const GENERATED = "Labels were successfully generated.";

function refuse(reply: FastifyReply, status: number, messages: unknown) {
  return reply.status(status).send({ status: "error", messages, payload: null });
}

/** The tags or ids a request names, or why it names none properly. */
function named(
  input: Record<string, unknown>,
): { column: "asset_tag" | "id"; values: (string | number)[] } | string {
  const given = input.asset_tags ?? input.asset_ids;
  if (given === undefined || given === null) return NOTHING_NAMED;
  const column = input.asset_tags !== undefined && input.asset_tags !== null ? "asset_tag" : "id";
  const field = column === "asset_tag" ? "asset_tags" : "asset_ids";
  if (!Array.isArray(given) || given.length === 0) return `The ${field} field must be a non-empty array.`;
  if (given.length > MAX_LABELS) return `The ${field} field must not have more than ${MAX_LABELS} items.`;
  if (column === "asset_tag" && !given.every((tag) => typeof tag === "string" && tag.length <= 255))
    return "Each asset tag must be a string of at most 255 characters.";
  if (column === "id" && !given.every((id) => Number.isSafeInteger(id) && id > 0))
    return "Each asset id must be a positive integer.";
  return { column, values: given as (string | number)[] };
}

export function registerLabels({ app, database }: ApiContext): void {
  const tags = ["labels"];

  app.get("/labels", { schema: { tags, querystring: ListQuery } }, async (request, reply) => {
    authorized(request, "assets.view");
    const query = request.query as Record<string, unknown>;
    const params = listParams(query, { allowed: ["name"], default: "name" });
    const terms = params.search.map((term) => term.toLowerCase());
    const matching = LABEL_TEMPLATES.filter(
      (template) => terms.length === 0 || terms.some((term) => template.name.toLowerCase().includes(term)),
    ).sort((a, b) => (query.order === "desc" ? -1 : 1) * a.name.localeCompare(b.name));
    const offset = Math.min(params.offset, matching.length);
    return sendList(request, reply, params, {
      total: matching.length,
      rows: matching.slice(offset, offset + params.limit).map(presentTemplate),
    });
  });

  app.get("/labels/*", { schema: { tags } }, async (request, reply) => {
    authorized(request, "assets.view");
    // Snipe-IT names templates with backslashes inside and slashes in its routes: either finds one.
    const template = findTemplate((request.params as Record<string, string>)["*"].replaceAll("\\", "/"));
    if (!template) return refuse(reply, 404, LABEL_NOT_FOUND);
    return presentTemplate(template);
  });

  app.post(
    "/hardware/labels",
    { schema: { tags: ["hardware"] }, config: permitted("assets.view") },
    async (request: FastifyRequest, reply) => {
      const caller = authorized(request, "assets.view");
      const wanted = named(bodyOf(request));
      if (typeof wanted === "string") return refuse(reply, 400, wanted);
      const db = database.db as AnyKysely;
      const assets = await labelAssets(db, caller, wanted);
      if (assets.length === 0) return refuse(reply, 404, ASSET_NOT_FOUND);
      const settings = await readSettings(database.db);
      const pdf = await labelsPdf(settings, assets);
      return success(GENERATED, { pdf: Buffer.from(pdf).toString("base64") });
    },
  );
}
