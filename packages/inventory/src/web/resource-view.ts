import type { FastifyReply, FastifyRequest } from "fastify";
import { unescaped } from "../convert/format.ts";
import { type Caller, can, isSuperuser } from "../services/permissions.ts";
import type { ResourceDefinition } from "../services/resource.ts";
import { type PageAccess, render, type WebContext } from "./context.ts";

// What the generic resource pages (routes/resources.ts) and their hand-written sections
// (routes/resource-sections.ts) share: who may do what, and how the API's values read on a page.

export type Level = "view" | "create" | "edit" | "delete";

/** What a level of a resource needs, as the API's route asks it (routes/v1/resource.ts `allowed`). */
export function accessTo(definition: ResourceDefinition, level: Level): PageAccess {
  if (definition.superuserOnly) return "superuser";
  return { permission: definition.gates?.[level] ?? `${definition.permission}.${level}` };
}

/** Whether the caller may do this level, as accessTo's guard decides it. */
export function mayDo(caller: Caller, definition: ResourceDefinition, level: Level): boolean {
  const access = accessTo(definition, level);
  return access === "superuser"
    ? isSuperuser(caller)
    : can(caller, (access as { permission: string }).permission);
}

/** A value of the API's object as a page shows it: text as typed, a related row's name, Yes/No. */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return unescaped(value);
  if (typeof value === "object") {
    const object = value as Record<string, unknown>;
    if (typeof object.formatted === "string") return object.formatted;
    if (typeof object.name === "string") return unescaped(object.name);
    if (typeof object.date === "string") return object.date;
  }
  return "";
}

/**
 * What views/resources/form.eta draws: a form's heading, where it posts, where Cancel leads, its
 * inputs, and its button's name (Save unless given).
 */
export interface FormPage {
  title: string;
  action: string;
  cancel: string;
  fields: readonly object[];
  button?: string;
  /** A part of the form its fields do not describe (routes/form-sections.ts): views/resources/TEMPLATE.eta. */
  section?: { template: string; data: Record<string, unknown> };
}

/** A form page, with the service's messages beside their fields (422) when it refused the post. */
export function renderForm(
  context: WebContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: FormPage,
  errors: Record<string, string[]> = {},
) {
  const status = Object.keys(errors).length > 0 ? 422 : 200;
  return render(context, request, reply, "resources/form", { ...form, errors }, status);
}
