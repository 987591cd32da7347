import { api, type InventoryClient } from "./inventory.ts";

// What asset tests need around an asset: a model (with its category), labels of every type, a
// location, a user. Names carry a prefix so several fixtures can live in one database.

export interface Envelope<P = Record<string, unknown>> {
  status: string;
  messages: unknown;
  payload: P;
}
export type List<R = Record<string, unknown>> = { total: number; rows: R[] };

export interface AssetFixture {
  modelId: number;
  categoryId: number;
  manufacturerId: number;
  deployable: number;
  pending: number;
  archived: number;
  undeployable: number;
  locationId: number;
  otherLocationId: number;
  userId: number;
}

async function created(
  inventory: InventoryClient,
  path: string,
  body: Record<string, unknown>,
): Promise<number> {
  const answer = await api<Envelope<{ id: number }>>(inventory, "POST", path, { body });
  if (answer.body.status !== "success") throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
  return answer.body.payload.id;
}

export async function assetFixture(inventory: InventoryClient, prefix: string): Promise<AssetFixture> {
  const categoryId = await created(inventory, "/categories", {
    name: `${prefix} laptops`,
    category_type: "asset",
  });
  const manufacturerId = await created(inventory, "/manufacturers", { name: `${prefix} Maker` });
  const modelId = await created(inventory, "/models", {
    name: `${prefix} X1`,
    model_number: `${prefix}-MN`,
    category_id: categoryId,
    manufacturer_id: manufacturerId,
    eol: 36,
  });
  const label = (type: string) => created(inventory, "/statuslabels", { name: `${prefix} ${type}`, type });
  const locationId = await created(inventory, "/locations", { name: `${prefix} HQ` });
  const otherLocationId = await created(inventory, "/locations", { name: `${prefix} Branch` });
  const userId = await created(inventory, "/users", {
    first_name: `${prefix}First`,
    last_name: "Holder",
    username: `${prefix}holder`,
    password: "password123",
    password_confirmation: "password123",
    location_id: locationId,
  });
  return {
    modelId,
    categoryId,
    manufacturerId,
    deployable: await label("deployable"),
    pending: await label("pending"),
    archived: await label("archived"),
    undeployable: await label("undeployable"),
    locationId,
    otherLocationId,
    userId,
  };
}

/** Creates an asset and answers its id. */
export async function createAsset(
  inventory: InventoryClient,
  fixture: AssetFixture,
  tag: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  return created(inventory, "/hardware", {
    asset_tag: tag,
    model_id: fixture.modelId,
    status_id: fixture.deployable,
    ...extra,
  });
}
