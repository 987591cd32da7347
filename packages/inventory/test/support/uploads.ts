import type { ApiAnswer, InventoryState } from "./inventory.ts";

// Multipart requests as a browser or curl -F sends them, for the upload routes.

export interface Part {
  name: string;
  /** Text for a field; bytes (with a file name) for a file. */
  value: string | Uint8Array;
  filename?: string;
  type?: string;
}

/** Sends `parts` as multipart/form-data to /api/v1`path` with the admin's token unless another is given. */
export async function postMultipart<T = unknown>(
  inventory: Pick<InventoryState, "url" | "adminToken">,
  path: string,
  parts: Part[],
  options: { token?: string; method?: string } = {},
): Promise<ApiAnswer<T>> {
  const form = new FormData();
  for (const part of parts) {
    if (typeof part.value === "string" && part.filename === undefined) form.append(part.name, part.value);
    else
      form.append(
        part.name,
        new Blob([part.value], { type: part.type ?? "application/octet-stream" }),
        part.filename ?? "file",
      );
  }
  const res = await fetch(`${inventory.url}/api/v1${path}`, {
    method: options.method ?? "POST",
    headers: { accept: "application/json", authorization: `Bearer ${options.token ?? inventory.adminToken}` },
    body: form,
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text === "" ? undefined : JSON.parse(text)) as T,
    headers: res.headers,
  };
}

/** The smallest PNG: one transparent pixel. */
export const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
);
