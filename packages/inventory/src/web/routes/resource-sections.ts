import { Conflict, Invalid, NotFound } from "@anvil/core";
import type { FastifyRequest } from "fastify";
import { users } from "../../resources/users.ts";
import { idParam, originOf } from "../../routes/v1/context.ts";
import {
  accessoryCheckouts,
  ComponentCheckoutInvalid,
  checkinAccessory,
  checkinComponent,
  checkoutStock,
  componentAssets,
  consumableUsers,
} from "../../services/checkouts.ts";
import { userAccessories, userAssets, userConsumables, userLicenses } from "../../services/holdings.ts";
import { type Caller, can, PERMISSION_SECTIONS } from "../../services/permissions.ts";
import { findResource, listResource, presentRows } from "../../services/resource.ts";
import { listSeats, SEAT_HOLDER_REQUIRED, updateSeat } from "../../services/seats.ts";
import { locationTree } from "../../services/selectlists.ts";
import { choicesOf, searchOf } from "../choices.ts";
import { field, guard, invalidFields, pageCaller, redirectWith, type WebContext } from "../context.ts";
import { PAGE_OF_PATH } from "../resource-pages.ts";
import { renderForm, shownValue } from "../resource-view.ts";

// What differs between the resources' pages, written by hand (issue 20): the locations' tree, what
// a user holds, a license's seats, and who has an accessory, a consumable or a component, with the
// check-out and check-in forms of each. Every form calls the service its /api/v1 route calls and
// checks the same permission.

/** A detail page's own section: the data its template (views/resources/NAME.eta) shows. */
export type DetailSection = (
  context: WebContext,
  caller: Caller,
  id: number,
  shown: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/** A list page's own section, above its table. */
export type ListSection = (
  context: WebContext,
  caller: Caller,
  query: Record<string, string>,
) => Promise<Record<string, unknown> | undefined>;

/** How many rows a detail page's section shows at most. */
const SECTION_ROWS = "100";

interface TreeNode {
  id: number;
  name: string;
  children: TreeNode[];
}

export const LIST_SECTIONS: Readonly<Record<string, ListSection>> = {
  // The whole tree of locations, parents above their children; a search shows the table alone.
  "location-tree": async ({ database }, _caller, query) => {
    if (query.search) return undefined;
    const roots: TreeNode[] = [];
    const path: TreeNode[] = [];
    for (const { row, depth } of await locationTree(database, "")) {
      const node = { id: Number(row.id), name: String(row.name), children: [] };
      path.length = depth;
      (depth === 0 ? roots : path[depth - 1].children).push(node);
      path.push(node);
    }
    return { roots };
  },
};

/** Whether a stock item's page offers Checkout: to whoever may, while some is left. */
function checkoutOffered(caller: Caller, path: string, shown: Record<string, unknown>): boolean {
  return can(caller, `${path}.checkout`) && Number(shown.remaining) > 0;
}

export const DETAIL_SECTIONS: Readonly<Record<string, DetailSection>> = {
  "location-children": async (_context, _caller, _id, shown) => ({
    children: ((shown.children as { id: number; name: string }[] | undefined) ?? []).map((child) => ({
      href: `/locations/${child.id}`,
      name: shownValue(child.name),
    })),
  }),

  // What the user holds, each list as its /api/v1/users/{id}/… route shows it, to whoever may read it.
  "user-holdings": async ({ database }, caller, id) => {
    const query = { limit: SECTION_ROWS };
    const assets = can(caller, "assets.view") ? await userAssets(database, caller, id, query) : undefined;
    const licenses = can(caller, "licenses.view")
      ? await userLicenses(database, caller, id, query)
      : undefined;
    const accessories = can(caller, "accessories.view")
      ? await userAccessories(database, caller, id, query)
      : undefined;
    const consumables = can(caller, "consumables.view")
      ? await userConsumables(database, caller, id, query)
      : undefined;
    const named = (rows: Record<string, unknown>[], url: string) =>
      rows.map((row) => ({ href: `${url}/${row.id}`, name: shownValue(row.name) }));
    return {
      assets: (assets?.rows as Record<string, unknown>[] | undefined)?.map((row) => ({
        href: `/hardware/${row.id}`,
        tag: shownValue(row.asset_tag),
        name: shownValue(row.name),
        model: shownValue(row.model),
      })),
      licenses: licenses && named(licenses.rows, "/licenses"),
      accessories: accessories && named(accessories.rows, "/accessories"),
      consumables: consumables && named(consumables.rows, "/consumables"),
    };
  },

  // A group's members (the API's /users?group_id=) and what it grants them.
  "group-members": async ({ database }, caller, id, shown) => {
    const members = await listResource(database, users, caller, {
      group_id: String(id),
      sort: "first_name",
      order: "asc",
      limit: SECTION_ROWS,
    });
    const held = (shown.permissions ?? {}) as Record<string, string>;
    return {
      total: members.total,
      members: members.rows.map((row) => ({
        href: `/users/${row.id}`,
        name: shownValue(row.name),
        username: shownValue(row.username),
      })),
      granted: PERMISSION_SECTIONS.flatMap(({ section, permissions }) =>
        permissions.filter(({ name }) => held[name] === "1").map(({ label }) => `${section}: ${label}`),
      ),
    };
  },

  "license-seats": async ({ database }, caller, id) => {
    const seats = await listSeats(database, caller, id, { limit: SECTION_ROWS });
    return {
      total: seats.total,
      seats: seats.rows.map((seat, index) => ({
        id: seat.id,
        number: seats.params.offset + index + 1,
        user: seat.assigned_user && {
          href: `/users/${seat.assigned_user.id}`,
          name: shownValue(seat.assigned_user.name),
        },
        asset: seat.assigned_asset && {
          href: `/hardware/${seat.assigned_asset.id}`,
          name: shownValue(seat.assigned_asset.name),
        },
        checkout: seat.available_actions.checkout,
        checkin: seat.available_actions.checkin,
      })),
    };
  },

  "accessory-checkouts": async ({ database }, caller, id, shown) => {
    const page = await accessoryCheckouts(database, caller, id, { limit: SECTION_ROWS });
    return {
      checkout: checkoutOffered(caller, "accessories", shown),
      rows: page.rows.map((row) => {
        const holder = row.assigned_to as { id: number; type: string; name: string } | null;
        return {
          id: row.id,
          holder: holder && {
            href: `${HOLDER_PAGES[holder.type]}/${holder.id}`,
            name: shownValue(holder.name),
          },
          note: shownValue(row.note),
          date: shownValue(row.created_at),
          checkin: (row.available_actions as { checkin: boolean }).checkin,
        };
      }),
    };
  },

  "consumable-users": async ({ database }, caller, id, shown) => {
    const page = await consumableUsers(database, caller, id);
    return {
      checkout: checkoutOffered(caller, "consumables", shown),
      rows: page.rows.map((row) => ({
        user: row.user && { href: `/users/${row.user.id}`, name: shownValue(row.user.name) },
        note: shownValue(row.note),
        date: shownValue(row.created_at),
      })),
    };
  },

  "component-assets": async ({ database }, caller, id, shown) => {
    const page = await componentAssets(database, caller, id, { limit: SECTION_ROWS });
    return {
      checkout: checkoutOffered(caller, "components", shown),
      rows: page.rows.map((row) => ({
        pivot: row.assigned_pivot_id,
        href: `/hardware/${row.id}`,
        name: shownValue(row.name),
        qty: row.qty,
        note: shownValue(row.note),
        checkin: row.available_actions.checkin,
      })),
    };
  },
};

const HOLDER_PAGES: Readonly<Record<string, string>> = {
  user: "/users",
  asset: "/hardware",
  location: "/locations",
};

/** One input of a check-out form, as views/resources/input.eta draws it. */
interface CheckoutField {
  name: string;
  label: string;
  kind: "select" | "number" | "textarea";
  required: boolean;
  value: string;
  options?: ReadonlyArray<readonly [string, string]>;
  step?: string;
  /** The search of a long select (web/choices.ts). */
  search?: string;
}

/** A select list the API serves (users, or assets ready to deploy) as options, and its search if long. */
async function choices(context: WebContext, caller: Caller, list: "users" | "hardware") {
  const query: Record<string, string> = list === "hardware" ? { assetStatusType: "RTD" } : {};
  const items = await choicesOf(context.database, caller, list, query);
  const options = items.map((item): [string, string] => [String(item.id), item.text]);
  return { options, search: searchOf(list, options, query) };
}

const NOTE = (value: string): CheckoutField => ({
  name: "note",
  label: "Notes",
  kind: "textarea",
  required: false,
  value,
});

/** What differs between the check-out forms of the kinds. */
interface CheckoutKind {
  /** The resource's path, and the permission's prefix. */
  path: "licenses" | "accessories" | "consumables" | "components";
  /** The form's inputs, with the values sent before (after a refusal). */
  fields: (context: WebContext, caller: Caller, sent: (name: string) => string) => Promise<CheckoutField[]>;
  /** Checks out with the service of the API's route; throws its refusals. */
  checkout: (context: WebContext, request: FastifyRequest, id: number) => Promise<void>;
  success: string;
}

const actorOf = (context: WebContext, request: FastifyRequest) => ({
  database: context.database,
  caller: pageCaller(request),
  origin: originOf(request),
});

const CHECKOUTS: readonly CheckoutKind[] = [
  {
    path: "accessories",
    fields: async (context, caller, sent) => [
      {
        name: "assigned_user",
        label: "Checkout to",
        kind: "select",
        required: true,
        value: sent("assigned_user"),
        ...(await choices(context, caller, "users")),
      },
      NOTE(sent("note")),
    ],
    checkout: (context, request, id) =>
      checkoutStock(actorOf(context, request), "accessory", id, {
        checkout_to_type: "user",
        assigned_user: field(request, "assigned_user"),
        note: field(request, "note"),
      }),
    success: "Accessory checked out successfully.",
  },
  {
    path: "consumables",
    fields: async (context, caller, sent) => [
      {
        name: "assigned_to",
        label: "Checkout to",
        kind: "select",
        required: true,
        value: sent("assigned_to"),
        ...(await choices(context, caller, "users")),
      },
      NOTE(sent("note")),
    ],
    checkout: (context, request, id) =>
      checkoutStock(actorOf(context, request), "consumable", id, {
        assigned_to: field(request, "assigned_to"),
        note: field(request, "note"),
      }),
    success: "Consumable checked out successfully.",
  },
  {
    path: "components",
    fields: async (context, caller, sent) => [
      {
        name: "assigned_to",
        label: "Select Asset",
        kind: "select",
        required: true,
        value: sent("assigned_to"),
        ...(await choices(context, caller, "hardware")),
      },
      {
        name: "assigned_qty",
        label: "Quantity",
        kind: "number",
        step: "1",
        required: true,
        value: sent("assigned_qty") || "1",
      },
      NOTE(sent("note")),
    ],
    checkout: async (context, request, id) => {
      try {
        await checkoutStock(actorOf(context, request), "component", id, {
          assigned_to: field(request, "assigned_to"),
          assigned_qty: field(request, "assigned_qty"),
          note: field(request, "note"),
        });
      } catch (error) {
        // The API answers these in its payload slot; a page shows them by their fields.
        throw error instanceof ComponentCheckoutInvalid
          ? new Invalid("The given data was invalid.", error.details)
          : error;
      }
    },
    success: "Component checked out successfully.",
  },
];

/** The seat check-out form: to a user or to an asset, as the seat's PATCH takes it. */
const seatFields = async (context: WebContext, caller: Caller, sent: (name: string) => string) => [
  {
    name: "assigned_to",
    label: "Select a User",
    kind: "select" as const,
    required: false,
    value: sent("assigned_to"),
    ...(await choices(context, caller, "users")),
  },
  {
    name: "asset_id",
    label: "Select Asset",
    kind: "select" as const,
    required: false,
    value: sent("asset_id"),
    ...(await choices(context, caller, "hardware")),
  },
  { ...NOTE(sent("notes")), name: "notes" },
];

/** A refusal a page shows as the form's own message, not an error page. */
function refusal(error: unknown): Record<string, string[]> {
  if (error instanceof Conflict || error instanceof NotFound) return { form: [error.message] };
  return invalidFields(error);
}

export function registerResourceSections(context: WebContext): void {
  const { app, database } = context;
  const allowed = (permission: string) => ({ onRequest: guard(context, { permission }) });

  for (const kind of CHECKOUTS) {
    const page = PAGE_OF_PATH.get(kind.path);
    if (!page) continue;
    const url = page.url;
    const form = async (request: FastifyRequest, id: number, sent = false) => {
      const caller = pageCaller(request);
      const row = await findResource(database, page.definition, id, undefined, caller);
      const shown = (await presentRows(database, page.definition, caller, [row]))[0];
      return {
        title: `Checkout ${page.singular}: ${shownValue(shown.name)}`,
        action: `${url}/${id}/checkout`,
        cancel: `${url}/${id}`,
        fields: await kind.fields(context, caller, (name) => (sent ? field(request, name) : "")),
        button: "Checkout",
      };
    };
    app.get(`${url}/:id/checkout`, allowed(`${kind.path}.checkout`), async (request, reply) =>
      renderForm(context, request, reply, await form(request, idParam(request))),
    );
    app.post(`${url}/:id/checkout`, allowed(`${kind.path}.checkout`), async (request, reply) => {
      const id = idParam(request);
      try {
        await kind.checkout(context, request, id);
      } catch (error) {
        return renderForm(context, request, reply, await form(request, id, true), refusal(error));
      }
      return redirectWith(context, reply, `${url}/${id}`, "success", kind.success);
    });
  }

  app.post("/accessories/:id/checkin/:checkout", allowed("accessories.checkin"), async (request, reply) => {
    const id = idParam(request);
    try {
      await checkinAccessory(actorOf(context, request), idParam(request, "checkout"), {});
    } catch (error) {
      return redirectWith(context, reply, `/accessories/${id}`, "error", refusal(error).form?.[0] ?? "");
    }
    return redirectWith(
      context,
      reply,
      `/accessories/${id}`,
      "success",
      "Accessory checked in successfully.",
    );
  });

  app.post("/components/:id/checkin/:pivot", allowed("components.checkin"), async (request, reply) => {
    const id = idParam(request);
    try {
      await checkinComponent(actorOf(context, request), idParam(request, "pivot"), {
        checkin_qty: field(request, "checkin_qty"),
      });
    } catch (error) {
      const message = error instanceof Invalid ? error.message : refusal(error).form?.[0];
      return redirectWith(context, reply, `/components/${id}`, "error", message ?? "");
    }
    return redirectWith(context, reply, `/components/${id}`, "success", "Component checked in successfully.");
  });

  // A license's seats: check one out to a user or an asset, or check it in (the seat's PATCH).
  const seatForm = async (request: FastifyRequest, sent = false) => {
    const caller = pageCaller(request);
    const id = idParam(request);
    const page = PAGE_OF_PATH.get("licenses");
    if (!page) throw new NotFound("License not found");
    const row = await findResource(database, page.definition, id, undefined, caller);
    const shown = (await presentRows(database, page.definition, caller, [row]))[0];
    return {
      title: `Checkout License: ${shownValue(shown.name)}`,
      action: `/licenses/${id}/checkout/${idParam(request, "seat")}`,
      cancel: `/licenses/${id}`,
      fields: await seatFields(context, caller, (name) => (sent ? field(request, name) : "")),
      button: "Checkout",
    };
  };
  app.get("/licenses/:id/checkout/:seat", allowed("licenses.checkout"), async (request, reply) =>
    renderForm(context, request, reply, await seatForm(request)),
  );
  app.post("/licenses/:id/checkout/:seat", allowed("licenses.checkout"), async (request, reply) => {
    const id = idParam(request);
    const input: Record<string, unknown> = { notes: field(request, "notes") };
    for (const name of ["assigned_to", "asset_id"])
      if (field(request, name) !== "") input[name] = field(request, name);
    try {
      if (input.assigned_to === undefined && input.asset_id === undefined)
        throw new Invalid("The given data was invalid.", {
          assigned_to: [SEAT_HOLDER_REQUIRED],
        });
      // A page never takes a seat from whoever holds it (the API's strict answer).
      await updateSeat(actorOf(context, request), id, idParam(request, "seat"), input, true);
    } catch (error) {
      return renderForm(context, request, reply, await seatForm(request, true), refusal(error));
    }
    return redirectWith(context, reply, `/licenses/${id}`, "success", "License checked out successfully.");
  });
  app.post("/licenses/:id/checkin/:seat", allowed("licenses.checkout"), async (request, reply) => {
    const id = idParam(request);
    await updateSeat(
      actorOf(context, request),
      id,
      idParam(request, "seat"),
      { assigned_to: null, asset_id: null },
      true,
    );
    return redirectWith(context, reply, `/licenses/${id}`, "success", "License checked in successfully.");
  });
}
