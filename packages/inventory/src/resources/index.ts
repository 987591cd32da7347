import type { ResourceDefinition } from "../services/resource.ts";
import { accessories } from "./accessories.ts";
import { categories } from "./categories.ts";
import { companies } from "./companies.ts";
import { components } from "./components.ts";
import { consumables } from "./consumables.ts";
import { departments } from "./departments.ts";
import { depreciations } from "./depreciations.ts";
import { groups } from "./groups.ts";
import { kits } from "./kits.ts";
import { licenses } from "./licenses.ts";
import { locations } from "./locations.ts";
import { maintenances } from "./maintenances.ts";
import { manufacturers } from "./manufacturers.ts";
import { models } from "./models.ts";
import { statuslabels } from "./statuslabels.ts";
import { suppliers } from "./suppliers.ts";
import { users } from "./users.ts";

/** Every table-driven resource of /api/v1; a new one is a definition file and a line here. */
export const RESOURCES: readonly ResourceDefinition[] = [
  companies,
  departments,
  locations,
  manufacturers,
  suppliers,
  categories,
  statuslabels,
  depreciations,
  models,
  groups,
  users,
  accessories,
  consumables,
  components,
  licenses,
  maintenances,
  kits,
];
