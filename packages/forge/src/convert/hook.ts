import { type Delivery, readBool } from "@anvil/core";
import type { WebhookRow } from "../repositories/webhooks.ts";
import { apiTime } from "./time.ts";

/**
 * A hook as Gitea's Hook: its config holds the target, the content type and the type's own
 * settings (slack's channel…), never the secret; the authorization header is not shown either.
 * The forge adds `http_method`, and `is_system_webhook` on site hooks (system or default).
 */
export function toApiHook(hook: WebhookRow) {
  const config: Record<string, string> = {
    url: hook.url,
    content_type: hook.content_type,
    http_method: hook.http_method,
  };
  if (hook.type === "slack") {
    const meta = JSON.parse(hook.meta) as Record<string, string>;
    for (const key of ["channel", "username", "icon_url", "color"]) config[key] = meta[key] ?? "";
  }
  if (hook.repo_id === null && hook.owner_id === null)
    config.is_system_webhook = String(readBool(hook.is_system));
  return {
    id: hook.id,
    type: hook.type,
    branch_filter: hook.branch_filter,
    config,
    events: JSON.parse(hook.events) as string[],
    active: readBool(hook.active),
    created_at: apiTime(hook.created_at),
    updated_at: apiTime(hook.updated_at),
  };
}

// A delivery's request headers as recorded, with the hook's Authorization header hidden: it is a
// credential of the receiver's, like the secret, which no signature reveals.
function shownHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      name.toLowerCase() === "authorization" ? "******" : value,
    ]),
  );
}

/**
 * One delivery of a hook, for the forge's delivery history (not in Gitea's API; its web UI shows
 * the same: what was sent, what came back, how long it took).
 */
export function toApiHookDelivery(delivery: Delivery) {
  return {
    id: delivery.id,
    uuid: delivery.uuid,
    event: delivery.event,
    status: delivery.status,
    is_succeed: delivery.isSucceed,
    attempts: delivery.attempts,
    created_at: apiTime(delivery.createdAt),
    delivered_at: delivery.deliveredAt && apiTime(delivery.deliveredAt),
    next_attempt_at: delivery.status === "pending" ? apiTime(delivery.nextAttemptAt) : null,
    duration_ms: delivery.durationMs,
    error: delivery.error,
    request: {
      url: delivery.url,
      method: delivery.method,
      headers: shownHeaders(delivery.requestHeaders),
      body: delivery.requestBody,
    },
    response:
      delivery.responseStatus === null
        ? null
        : {
            status: delivery.responseStatus,
            headers: delivery.responseHeaders ?? {},
            body: delivery.responseBody ?? "",
          },
  };
}
