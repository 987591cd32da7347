import { Forbidden, type HttpServer, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import type { Row } from "../../repositories/records.ts";
import { idParam, originOf } from "../../routes/v1/context.ts";
import { acceptMultipart, stagedFiles } from "../../routes/v1/multipart.ts";
import {
  columnKeys,
  deleteImport,
  findImport,
  IMPORT_FIELDS,
  IMPORT_MESSAGES,
  IMPORT_TYPES,
  importErrors,
  importFile,
  listImports,
  presentImport,
  startImport,
  storeImports,
  UploadRefused,
} from "../../services/imports.ts";
import { hasAccess, UNAUTHORIZED_ACTION } from "../../services/permissions.ts";
import {
  field,
  guard,
  pageCaller,
  redirectWith,
  render,
  renderPart,
  ticked,
  type WebContext,
} from "../context.ts";

// The importer (Snipe-IT's /import): upload a CSV file, map its columns to fields, choose what it
// imports and whether it updates what exists, then follow its progress while it runs (htmx polls
// the import's rows done, created, updated and failed, which the service records after every
// batch) and read the rows that failed. The same services and storage as /api/v1/imports, behind
// the same `import` gate (which `admin` does not imply), checked before a body is read.

/** What each import type is called on the page. */
const TYPE_LABELS: Readonly<Record<string, string>> = {
  asset: "Assets",
  accessory: "Accessories",
  consumable: "Consumables",
  component: "Components",
  license: "Licenses",
  user: "Users",
  location: "Locations",
  assetmodel: "Asset Models",
};

const TYPES = IMPORT_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] ?? type }));
const FIELD_KEYS = new Set(IMPORT_FIELDS.map((choice) => choice.key));

/** How often a running import's progress is asked for. */
const POLL = "every 1s";

/** Refuses a caller without the `import` gate (after `guard`, before the body is read). */
function importersOnly(request: FastifyRequest) {
  if (!hasAccess(pageCaller(request), "import")) throw new Forbidden(UNAUTHORIZED_ACTION);
}

/** An import as its page shows it: the service's object, its columns (header, sample, field), its failures. */
async function importView(context: WebContext, row: Row) {
  const shown = presentImport(row);
  const header = (shown.header_row ?? []) as string[];
  const first = (shown.first_row ?? []) as string[];
  const keys = columnKeys(header, (shown.field_map ?? {}) as Record<string, unknown>);
  const running = shown.import_status === "processing";
  return {
    import: shown,
    columns: header.map((name, index) => ({ name, sample: first[index] ?? "", key: keys[index] ?? "" })),
    running,
    poll: POLL,
    failures: shown.import_status && !running ? await importErrors(context.database, Number(row.id)) : [],
  };
}

export async function registerImports(context: WebContext): Promise<void> {
  const { database, storage } = context;
  await context.app.register(async (scope) => {
    const app = scope as unknown as HttpServer;
    // Uploads are staged as the API stages them, on these routes only.
    acceptMultipart(app, storage);
    // The gate is the route's `authorize`: it runs before the body is read, so that no file of a
    // caller without it is staged (core's saveUploads keeps files only on such routes).
    const importers = { onRequest: guard(context), config: { authorize: importersOnly } };

    /** The upload form and the caller's files; `errors` of a refused upload. */
    const listView = async (request: FastifyRequest, errors: Record<string, string[]> = {}) => ({
      title: "Import",
      imports: (await listImports(database, pageCaller(request))).map(presentImport),
      errors,
    });

    /** The caller's import named by the URL; the 404 page for any other. */
    const theImport = async (request: FastifyRequest) => {
      const row = await findImport(database, pageCaller(request), idParam(request));
      if (!row) throw new NotFound(IMPORT_MESSAGES.notFound);
      return row;
    };

    /** An import's page: its progress and failures, and the form that runs it; `errors` of a refused run. */
    const showView = async (row: Row, errors: Record<string, string[]> = {}) => ({
      title: "Import",
      ...(await importView(context, row)),
      types: TYPES,
      fields: IMPORT_FIELDS,
      errors,
    });

    app.get("/import", importers, async (request, reply) =>
      render(context, request, reply, "import/index", await listView(request)),
    );

    app.post("/import", importers, async (request, reply) => {
      let rows: Row[];
      try {
        rows = await storeImports(database, storage, pageCaller(request), stagedFiles(request, "files"));
      } catch (error) {
        if (!(error instanceof UploadRefused)) throw error;
        const view = await listView(request, { files: [error.message] });
        return render(context, request, reply, "import/index", view, 422);
      }
      return redirectWith(
        context,
        reply,
        `/import/${rows[0].id}`,
        "success",
        "Your file has been uploaded. Choose what it imports and the field of each column.",
      );
    });

    app.get("/import/:id", importers, async (request, reply) =>
      render(context, request, reply, "import/show", await showView(await theImport(request))),
    );

    // The progress alone, for htmx to swap in while the import runs (polling stops once it ends).
    app.get("/import/:id/progress", importers, async (request, reply) => {
      const view = await importView(context, await theImport(request));
      return renderPart(reply, "import/progress", { ...view, polled: true });
    });

    app.post("/import/:id/process", importers, async (request, reply) => {
      const row = await theImport(request);
      const importType = field(request, "import-type").toLowerCase();
      const header = (presentImport(row).header_row ?? []) as string[];
      const mappings = Object.fromEntries(
        header.map((name, index) => [name, field(request, `column-${index}`)]),
      );
      const errors: Record<string, string[]> = {};
      if (!IMPORT_TYPES.includes(importType))
        errors["import-type"] = ["The selected import type is invalid."];
      if (Object.values(mappings).some((key) => key !== "" && !FIELD_KEYS.has(key)))
        errors.form = ["A column is mapped to a field the importer does not know."];
      const path = await importFile(storage, row);
      if (!path) errors.form = [IMPORT_MESSAGES.missingFile];
      if (Object.keys(errors).length > 0 || !path)
        return render(context, request, reply, "import/show", await showView(row, errors), 422);
      await startImport({
        database,
        storage,
        context: { caller: pageCaller(request), origin: originOf(request), logger: request.log },
        row,
        path,
        options: { importType, mappings, update: ticked(request, "import-update"), runBackup: false },
      });
      return reply.redirect(`/import/${row.id}`, 303);
    });

    app.post("/import/:id/delete", importers, async (request, reply) => {
      const deleted = await deleteImport(database, storage, pageCaller(request), idParam(request));
      if (!deleted) throw new NotFound(IMPORT_MESSAGES.notFound);
      return redirectWith(context, reply, "/import", "success", IMPORT_MESSAGES.deleted);
    });
  });
}
