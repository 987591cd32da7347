import { Conflict, Forbidden, Invalid } from "@anvil/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { date, unescaped } from "../../convert/format.ts";
import { depreciations } from "../../resources/depreciations.ts";
import { idParam, originOf } from "../../routes/v1/context.ts";
import { listFieldsets } from "../../services/custom-fields.ts";
import type { Caller } from "../../services/permissions.ts";
import {
  createResource,
  deleteResource,
  findResource,
  listResource,
  presentRows,
  type ResourceDefinition,
  restoreResource,
  updateResource,
} from "../../services/resource.ts";
import { SELECTLISTS } from "../../services/selectlists.ts";
import { hasRule } from "../../services/validation.ts";
import { type ChoiceList, choicesOf, searchOf } from "../choices.ts";
import {
  field,
  guard,
  invalidFields,
  pageCaller,
  redirectWith,
  render,
  renderPart,
  ticked,
  type WebContext,
  wantsPart,
} from "../context.ts";
import { FIELD_LABELS, RESOURCE_PAGES, type ResourcePage } from "../resource-pages.ts";
import { accessTo, type Level, mayDo, renderForm, shownValue } from "../resource-view.ts";
import { FORM_SECTIONS } from "./form-sections.ts";
import { DETAIL_SECTIONS, LIST_SECTIONS } from "./resource-sections.ts";

// One set of pages for every resource of RESOURCE_PAGES (issue 20): list, detail, create, edit and
// delete, each calling the service its /api/v1 route calls and checking the same permission. The
// form's inputs follow the definition's rules; what differs per resource is in resource-pages.ts
// and, for the sections a list or detail page has of its own, in resource-sections.ts.

/** Fields the pages leave to the API or to pages of their own (images, permissions, memberships). */
const NOT_ON_FORMS = new Set([
  "image",
  "ldap_import",
  "permissions",
  "groups",
  "default_values",
  "add_default_values",
  "custom_fieldset_id",
]);

/** Text longer than this may take lines of its own (notes, a EULA): a textarea. */
const LINE_LENGTH = 255;

type InputKind =
  | "text"
  | "email"
  | "url"
  | "number"
  | "date"
  | "textarea"
  | "checkbox"
  | "select"
  | "password";

interface FormField {
  name: string;
  label: string;
  kind: InputKind;
  required: boolean;
  /** For a number field: "any" where decimals are allowed. */
  step?: string;
  /** For a select: the table its ids name (`exists:`), or fixed choices. */
  table?: string;
  choices?: ReadonlyArray<readonly [string, string]>;
}

function labelOf(page: ResourcePage, name: string): string {
  const label = page.labels?.[name] ?? FIELD_LABELS[name];
  if (label) return label;
  const words = name.replace(/_id$/, "").split("_");
  return words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(" ");
}

/** The form of a resource, from its definition's columns and rules. */
function formFields(page: ResourcePage, creating: boolean): FormField[] {
  const { definition } = page;
  const rules = { ...definition.rules, ...(creating ? definition.createRules : {}) };
  const names = [...definition.columns, ...(page.extraFields ?? [])].filter(
    (name) => !NOT_ON_FORMS.has(name) && rules[name] !== undefined,
  );
  const fields: FormField[] = [];
  for (const name of names) {
    const rule = rules[name];
    const required = hasRule(rule, "required");
    const base = { name, label: labelOf(page, name), required };
    const table = /(?:^|\|)exists:([a-z_]+)/.exec(rule)?.[1];
    const choices = page.choices?.[name];
    if (choices) fields.push({ ...base, kind: "select", choices });
    else if (table) fields.push({ ...base, kind: "select", table });
    else if (hasRule(rule, "boolean")) fields.push({ ...base, kind: "checkbox", required: false });
    else if (hasRule(rule, "email")) fields.push({ ...base, kind: "email" });
    else if (hasRule(rule, "url")) fields.push({ ...base, kind: "url" });
    else if (hasRule(rule, "date")) fields.push({ ...base, kind: "date" });
    else if (hasRule(rule, "integer")) fields.push({ ...base, kind: "number", step: "1" });
    else if (hasRule(rule, "numeric")) fields.push({ ...base, kind: "number", step: "any" });
    else if (Number(/(?:^|\|)max:(\d+)/.exec(rule)?.[1] ?? 0) > LINE_LENGTH)
      fields.push({ ...base, kind: "textarea" });
    else fields.push({ ...base, kind: "text" });
  }
  for (const name of definition.passwordFields ?? []) {
    const rule = rules[name] ?? "";
    fields.push({ name, label: labelOf(page, name), kind: "password", required: hasRule(rule, "required") });
    if (hasRule(rule, "confirmed"))
      fields.push({
        name: `${name}_confirmation`,
        label: labelOf(page, `${name}_confirmation`),
        kind: "password",
        required: hasRule(rule, "required"),
      });
  }
  return fields;
}

/**
 * The form's input as the services take it: checkboxes as 1 or 0, an empty password left out, and
 * the form's own section (Forbidden when it carries what the caller may not send).
 */
function formInput(
  request: FastifyRequest,
  page: ResourcePage,
  caller: Caller,
  creating: boolean,
): Record<string, unknown> {
  const section = page.formSection ? FORM_SECTIONS[page.formSection] : undefined;
  const input: Record<string, unknown> = section ? section.input(request, caller) : {};
  for (const { name, kind } of formFields(page, creating)) {
    if (kind === "checkbox") input[name] = ticked(request, name) ? "1" : "0";
    else if (kind === "password") {
      if (field(request, name) !== "") input[name] = field(request, name);
    } else input[name] = field(request, name);
  }
  return input;
}

/** The select lists served under another name than their table's. */
const SELECTLIST_OF_TABLE: Readonly<Record<string, string>> = {
  status_labels: "statuslabels",
  assets: "hardware",
};

/** The select list (web/choices.ts) a select of ids of this table offers, if the API serves one. */
function listOf(page: ResourcePage, table: string): ChoiceList | undefined {
  if (table === "locations") return "locations";
  if (table === "categories") return page.categoryType ? `categories/${page.categoryType}` : undefined;
  const list = SELECTLIST_OF_TABLE[table] ?? table;
  return Object.hasOwn(SELECTLISTS, list) ? list : undefined;
}

/** The names a select offers, by the table its ids name: the select lists the API serves to pages. */
async function optionsOf(
  context: WebContext,
  caller: Caller,
  page: ResourcePage,
  table: string,
): Promise<Array<[string, string]>> {
  const { database } = context;
  const list = listOf(page, table);
  if (list)
    return (await choicesOf(database, caller, list)).map((item): [string, string] => [
      String(item.id),
      item.text,
    ]);
  if (table === "custom_fieldsets")
    return (await listFieldsets(database.db)).map((row) => [String(row.id), String(row.name)]);
  if (table === "depreciations") {
    const list = await listResource(database, depreciations, caller, { sort: "name", order: "asc" });
    return list.rows.map((row) => [String(row.id), unescaped(String(row.name))]);
  }
  return [];
}

/** What a form template shows: each field with its value, its options and its messages. */
async function formView(
  context: WebContext,
  caller: Caller,
  page: ResourcePage,
  creating: boolean,
  values: Record<string, unknown>,
  shown: Record<string, unknown> | undefined,
) {
  const fields = formFields(page, creating);
  return Promise.all(
    fields.map(async (form) => {
      const raw = values[form.name];
      const value =
        raw === null || raw === undefined || form.kind === "password"
          ? ""
          : form.kind === "date"
            ? (date(raw as string | Date)?.date ?? "")
            : String(raw);
      let options: ReadonlyArray<readonly [string, string]> | undefined;
      let search: string | undefined;
      if (form.choices) options = form.choices;
      else if (form.table) {
        options = await optionsOf(context, caller, page, form.table);
        const list = listOf(page, form.table);
        // A long list gets a search beside it, for the entries past its first pages.
        if (list) search = searchOf(list, options);
        // The stored choice stays offered when the list's first page leaves it out.
        if (value !== "" && !options.some(([id]) => id === value)) {
          const relation = Object.entries(page.definition.relations).find(
            ([, related]) => related.column === form.name,
          );
          const current = relation && (shown?.[relation[0]] as { name?: string } | null | undefined);
          options = [[value, current?.name ? unescaped(current.name) : `#${value}`], ...options];
        }
      }
      const checked = form.kind === "checkbox" && (raw === true || raw === 1 || raw === "1");
      return { ...form, value, options, checked, search };
    }),
  );
}

/** The page a related object links to (`{id, name}` of a resource with pages), if any. */
function linkOf(key: string, value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || typeof (value as { id?: unknown }).id !== "number")
    return undefined;
  const target = RELATED_PAGES[key];
  return target ? `${target}/${(value as { id: number }).id}` : undefined;
}

/** Where the related objects of the API's answers have their pages. */
const RELATED_PAGES: Readonly<Record<string, string>> = {
  asset: "/hardware",
  company: "/companies",
  location: "/locations",
  parent: "/locations",
  manager: "/users",
  department: "/departments",
  category: "/categories",
  manufacturer: "/manufacturers",
  supplier: "/suppliers",
  depreciation: "/depreciations",
  fieldset: "/fields/fieldsets",
  created_by: "/users",
};

/** Rows a list page shows unless its address asks for more or fewer (the API's limit caps it). */
const PER_PAGE = "20";

/** The list's query string with some parameters changed. */
function listHref(url: string, query: Record<string, string>, change: Record<string, string | number>) {
  const params = new URLSearchParams({
    ...query,
    ...Object.fromEntries(Object.entries(change).map(([k, v]) => [k, String(v)])),
  });
  for (const [key, value] of [...params.entries()]) if (value === "") params.delete(key);
  const text = params.toString();
  return text === "" ? url : `${url}?${text}`;
}

/**
 * The list's parameters a page keeps in its links: the API's paging, sorting and searching, and
 * its filters (`/users?company_id=1`). Strings only; anything else is dropped.
 */
function listQuery(request: FastifyRequest, definition: ResourceDefinition): Record<string, string> {
  const given = request.query as Record<string, unknown>;
  const kept: Record<string, string> = {};
  const deleted = deletedFilter(definition);
  const names = ["search", "sort", "order", "offset", "limit", ...Object.keys(definition.list.filters)];
  for (const name of [...names, ...(deleted ? [deleted[0]] : [])])
    if (typeof given[name] === "string" && given[name] !== "") kept[name] = given[name] as string;
  return kept;
}

/**
 * The API's filter that lists a restorable resource's deleted rows, as its definition reads it
 * (`deleted=true` for most, `status=deleted` for models); none where rows cannot be restored.
 */
function deletedFilter(definition: ResourceDefinition): readonly [string, string] | undefined {
  const { restore, list } = definition;
  if (!restore || !list.trashed) return undefined;
  const trashed = list.trashed;
  return (
    [
      ["deleted", "true"],
      ["status", "deleted"],
    ] as const
  ).find(([name, value]) => trashed({ [name]: value }) === "only");
}

function registerResource(context: WebContext, page: ResourcePage): void {
  const { app, database } = context;
  const { definition, url } = page;
  const on = (level: Level) => ({ onRequest: guard(context, accessTo(definition, level)) });
  const may = (caller: Caller) => ({
    create: mayDo(caller, definition, "create"),
    edit: mayDo(caller, definition, "edit"),
    delete: mayDo(caller, definition, "delete"),
  });
  const deleted = deletedFilter(definition);
  const present = async (caller: Caller, id: number, trashed: "with" | "without" = "without") => {
    const row = await findResource(database, definition, id, undefined, caller, trashed);
    return { row, shown: (await presentRows(database, definition, caller, [row]))[0] };
  };
  const nameKey = page.nameKey ?? "name";
  const nameOf = (shown: Record<string, unknown>) => shownValue(shown[nameKey]) || `#${shown.id}`;

  app.get(url, on("view"), async (request, reply) => {
    const caller = pageCaller(request);
    const query = listQuery(request, definition);
    const list = await listResource(database, definition, caller, { limit: PER_PAGE, ...query });
    const { offset, sort, order, limit } = list.params;
    const sortable = new Set(definition.list.sorts);
    const showsDeleted = deleted !== undefined && query[deleted[0]] === deleted[1];
    const data = {
      url,
      query,
      search: query.search ?? "",
      // What a new search keeps: the order and the filters.
      kept: Object.entries(query).filter(([name]) => name !== "search" && name !== "offset"),
      searchable: definition.list.search.length > 0,
      total: list.total,
      first: list.total === 0 ? 0 : offset + 1,
      last: offset + list.rows.length,
      previous: offset > 0 ? listHref(url, query, { offset: Math.max(0, offset - limit) }) : undefined,
      next:
        offset + list.rows.length < list.total ? listHref(url, query, { offset: offset + limit }) : undefined,
      headers: page.columns.map((column) => ({
        ...column,
        sorted: sort === column.key ? (order === "asc" ? "ascending" : "descending") : undefined,
        href: sortable.has(column.key)
          ? listHref(url, query, {
              sort: column.key,
              order: sort === column.key && order === "asc" ? "desc" : "asc",
              offset: "",
            })
          : undefined,
      })),
      rows: list.rows.map((shown) => ({
        href: `${url}/${shown.id}`,
        name: nameOf(shown),
        cells: page.columns.map((column) => ({
          text: shownValue(shown[column.key]),
          href: column.key === nameKey ? `${url}/${shown.id}` : linkOf(column.key, shown[column.key]),
        })),
      })),
      // Deleted rows are restored from their own page, neither edited nor deleted again.
      may: showsDeleted ? { ...may(caller), edit: false, delete: false } : may(caller),
      deletedLink: deleted && {
        text: showsDeleted ? "Show Current" : "Show Deleted",
        href: listHref(url, query, { [deleted[0]]: showsDeleted ? "" : deleted[1], offset: "" }),
      },
      listSection: page.listSection,
      tree: page.listSection ? await LIST_SECTIONS[page.listSection]?.(context, caller, query) : undefined,
    };
    reply.header("vary", "HX-Request");
    if (wantsPart(request)) return renderPart(reply, "resources/table", data);
    return render(context, request, reply, "resources/list", { title: page.title, ...data });
  });

  /** The create form (no id) or the edit form, with the service's messages when it refused. */
  const showForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: { id?: number; values: Record<string, unknown>; shown?: Record<string, unknown> },
    errors: Record<string, string[]> = {},
  ) => {
    const { id, values, shown } = form;
    const creating = id === undefined;
    const caller = pageCaller(request);
    const fields = await formView(context, caller, page, creating, values, shown);
    const formSection = page.formSection ? FORM_SECTIONS[page.formSection] : undefined;
    const sectionData = await formSection?.view(context, caller, values);
    const section = sectionData && { template: page.formSection as string, data: sectionData };
    const data = creating
      ? { title: `Create New ${page.singular}`, action: url, cancel: url }
      : {
          title: `Update ${page.singular}: ${shown ? nameOf(shown) : ""}`,
          action: `${url}/${id}`,
          cancel: `${url}/${id}`,
        };
    return renderForm(context, request, reply, { ...data, fields, section }, errors);
  };

  app.get(`${url}/create`, on("create"), async (request, reply) =>
    showForm(request, reply, { values: page.createDefaults ?? {} }),
  );

  app.post(url, on("create"), async (request, reply) => {
    const caller = pageCaller(request);
    const input = formInput(request, page, caller, true);
    let id: number;
    try {
      id = Number((await createResource(database, definition, caller, originOf(request), input)).id);
    } catch (error) {
      return showForm(request, reply, { values: input }, invalidFields(error));
    }
    return redirectWith(context, reply, `${url}/${id}`, "success", definition.messages.create);
  });

  app.get(`${url}/:id`, on("view"), async (request, reply) => {
    const caller = pageCaller(request);
    const id = idParam(request);
    // A restorable resource's deleted row keeps its page, where it is restored.
    const { row, shown } = await present(caller, id, deleted ? "with" : "without");
    const isDeleted = row.deleted_at !== null && row.deleted_at !== undefined;
    // A deleted row's page shows its lines and Restore; its sections' services read live rows only.
    const section =
      page.detailSection && !isDeleted
        ? await DETAIL_SECTIONS[page.detailSection]?.(context, caller, id, shown)
        : undefined;
    return render(context, request, reply, "resources/show", {
      title: nameOf(shown),
      url,
      id,
      lines: page.columns.map((column) => ({
        title: column.title,
        text: shownValue(shown[column.key]),
        href: column.key === nameKey ? undefined : linkOf(column.key, shown[column.key]),
      })),
      may: isDeleted
        ? { edit: false, delete: false, restore: mayDo(caller, definition, "delete") }
        : may(caller),
      deleted: isDeleted,
      singular: page.singular,
      section: section && { template: `resources/${page.detailSection}`, data: section },
    });
  });

  app.get(`${url}/:id/edit`, on("edit"), async (request, reply) => {
    const id = idParam(request);
    const { row, shown } = await present(pageCaller(request), id);
    // The stored columns, and what only the API's object says (a status label's type).
    return showForm(request, reply, { id, values: { ...shown, ...row }, shown });
  });

  app.post(`${url}/:id`, on("edit"), async (request, reply) => {
    const caller = pageCaller(request);
    const id = idParam(request);
    const input = formInput(request, page, caller, false);
    try {
      await updateResource(database, definition, caller, originOf(request), id, input);
    } catch (error) {
      const errors = invalidFields(error);
      return showForm(
        request,
        reply,
        { id, values: input, shown: (await present(caller, id)).shown },
        errors,
      );
    }
    return redirectWith(context, reply, `${url}/${id}`, "success", definition.messages.update);
  });

  if (definition.restore) {
    const { restore } = definition;
    app.post(`${url}/:id/restore`, on("delete"), async (request, reply) => {
      const id = idParam(request);
      const restored = await restoreResource(
        database,
        definition,
        pageCaller(request),
        originOf(request),
        id,
      );
      return restored
        ? redirectWith(context, reply, `${url}/${id}`, "success", restore.success)
        : redirectWith(context, reply, `${url}/${id}`, "error", restore.notDeleted);
    });
  }

  app.get(`${url}/:id/delete`, on("delete"), async (request, reply) => {
    const caller = pageCaller(request);
    const id = idParam(request);
    const { shown } = await present(caller, id);
    return render(context, request, reply, "resources/delete", {
      title: `Delete ${page.singular}`,
      name: nameOf(shown),
      action: `${url}/${id}/delete`,
      cancel: `${url}/${id}`,
    });
  });

  app.post(`${url}/:id/delete`, on("delete"), async (request, reply) => {
    const caller = pageCaller(request);
    const id = idParam(request);
    try {
      await deleteResource(database, definition, caller, originOf(request), id);
    } catch (error) {
      // The API's refusal ("currently associated…", each reason a user is kept for), on the row's page.
      if (error instanceof Conflict || error instanceof Forbidden || error instanceof Invalid) {
        const reasons = error instanceof Invalid ? Object.values(error.details).flat() : [];
        return redirectWith(context, reply, `${url}/${id}`, "error", [error.message, ...reasons].join(" "));
      }
      throw error;
    }
    return redirectWith(context, reply, url, "success", definition.messages.delete);
  });
}

export function registerResourcePages(context: WebContext): void {
  for (const page of RESOURCE_PAGES) registerResource(context, page);
}
