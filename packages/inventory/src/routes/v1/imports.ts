import { Forbidden, NotFound, publicUrl } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { WEB_PAGES } from "../../convert/format.ts";
import {
  deleteImport,
  findImport,
  IMPORT_MESSAGES,
  IMPORT_TYPES,
  importErrors,
  importFile,
  listImports,
  presentImport,
  processImport,
  storeImports,
  UploadRefused,
} from "../../services/imports.ts";
import { type Caller, hasAccess, UNAUTHORIZED_ACTION } from "../../services/permissions.ts";
import { validate } from "../../services/validation.ts";
import { type ApiContext, callerOf, idParam, originOf, success } from "./context.ts";
import { bodyOf } from "./hardware.ts";
import { stagedFiles } from "./multipart.ts";
import { IdParams } from "./resource.ts";

// /imports (spec §21): upload CSV files (multipart `files[]`), list them, process one into records,
// delete one. All behind the `import` permission; a user sees and processes only their own uploads
// unless they are a superuser. GET /imports/{id}, which Snipe-IT does not have, shows one import
// with its progress and failed rows, so that a client can follow a long processing from elsewhere.

const tags = ["imports"];

const PROCESS_RULES = {
  "import-type": `required|string|in:${IMPORT_TYPES.join(",")}`,
  "column-mappings": "nullable|object",
  "import-update": "nullable|boolean",
  "send-welcome": "nullable|boolean",
  "run-backup": "nullable|boolean",
};

const UploadBody = Type.Object({
  "files[]": Type.Array(Type.String({ format: "binary" }), { description: "one or more CSV files" }),
});

const ProcessBody = Type.Object({
  "import-type": Type.String({ description: IMPORT_TYPES.join(" | ") }),
  "column-mappings": Type.Optional(Type.Record(Type.String(), Type.String())),
  "import-update": Type.Optional(Type.Boolean()),
  "send-welcome": Type.Optional(Type.Boolean()),
  "run-backup": Type.Optional(Type.Boolean()),
});

function importer(request: FastifyRequest): Caller {
  const caller = callerOf(request);
  if (!hasAccess(caller, "import")) throw new Forbidden(UNAUTHORIZED_ACTION);
  return caller;
}

export function registerImports({ app, database, storage }: ApiContext): void {
  app.get("/imports", { schema: { tags } }, async (request) => {
    const caller = importer(request);
    return (await listImports(database, caller)).map(presentImport);
  });

  app.get("/imports/:id", { schema: { tags, params: IdParams } }, async (request) => {
    const caller = importer(request);
    const row = await findImport(database, caller, idParam(request));
    if (!row) throw new NotFound(IMPORT_MESSAGES.notFound);
    return { ...presentImport(row), errors: await importErrors(database, Number(row.id)) };
  });

  app.post(
    "/imports",
    // The permission is checked before the body is read, so no file is staged without it.
    {
      schema: { tags, consumes: ["multipart/form-data"], body: UploadBody },
      config: { authorize: importer },
    },
    async (request, reply) => {
      const caller = importer(request);
      try {
        const rows = await storeImports(database, storage, caller, stagedFiles(request, "files"));
        return { files: rows.map(presentImport) };
      } catch (error) {
        if (!(error instanceof UploadRefused)) throw error;
        return reply.status(422).send({ status: "error", messages: error.message, payload: null });
      }
    },
  );

  app.post(
    "/imports/process/:id",
    { schema: { tags, params: IdParams, body: ProcessBody }, config: { authorize: importer } },
    async (request, reply) => {
      const caller = importer(request);
      const body = bodyOf(request);
      const values = await validate(database.db, body, PROCESS_RULES);
      const row = await findImport(database, caller, idParam(request));
      const path = row && (await importFile(storage, row));
      if (!row || !path)
        return reply
          .status(500)
          .send({ status: "import-errors", messages: [[IMPORT_MESSAGES.missingFile]], payload: null });
      const importType = String(values["import-type"]).toLowerCase();
      const { errors } = await processImport(
        database,
        storage,
        { caller, origin: originOf(request), logger: request.log },
        row,
        path,
        {
          importType,
          mappings: (values["column-mappings"] as Record<string, unknown> | null | undefined) ?? {},
          update: values["import-update"] === true,
          runBackup: values["run-backup"] === true,
        },
      );
      if (Object.keys(errors).length > 0)
        return reply.status(500).send({ status: "import-errors", messages: errors, payload: null });
      return {
        status: "success",
        messages: { redirect_url: publicUrl(request.rootUrl, WEB_PAGES[importType]).href },
        payload: null,
      };
    },
  );

  app.delete(
    "/imports/:id",
    { schema: { tags, params: IdParams }, config: { authorize: importer } },
    async (request) => {
      const caller = importer(request);
      return (await deleteImport(database, storage, caller, idParam(request)))
        ? success(IMPORT_MESSAGES.deleted)
        : { status: "warning", messages: IMPORT_MESSAGES.notDeleted, payload: null };
    },
  );
}
