import { type DeliveryMethod, signHmacSha1Hex, signHmacSha256Hex } from "@anvil/core";
import type { WebhookRow } from "../repositories/webhooks.ts";

// What one delivery of one event to one hook looks like on the wire: Gitea's payload shapes per
// hook type, its content types and headers (with the Gogs and GitHub copies), and the forge's own
// X-Forge-* headers.

/** Gitea's webhook event names (HookEventType), in its order; a hook subscribes to some of them. */
const HOOK_EVENTS = [
  "create",
  "delete",
  "fork",
  "push",
  "issues",
  "issue_assign",
  "issue_label",
  "issue_milestone",
  "issue_comment",
  "pull_request",
  "pull_request_assign",
  "pull_request_label",
  "pull_request_milestone",
  "pull_request_comment",
  "pull_request_review_approved",
  "pull_request_review_rejected",
  "pull_request_review_comment",
  "pull_request_sync",
  "pull_request_review_request",
  "wiki",
  "repository",
  "release",
  "package",
  "status",
  "workflow_run",
  "workflow_job",
] as const;

const MAX_EVENTS_GIVEN = 128;

const ISSUE_KINDS = new Set(["issue_assign", "issue_label", "issue_milestone", "issue_comment"]);
const PULL_KINDS = new Set([
  "pull_request_assign",
  "pull_request_label",
  "pull_request_milestone",
  "pull_request_comment",
  "pull_request_sync",
  "pull_request_review_request",
]);
const REVIEW_KINDS = new Set([
  "pull_request_review_approved",
  "pull_request_review_rejected",
  "pull_request_review_comment",
]);

/**
 * The events a hook subscribes to from the names a client gave, as Gitea's API reads them:
 * none means push; `issues` means every issue event and `pull_request` every pull-request one
 * (`issues_only` and `pull_request_only` just the plain one); unknown names are ignored.
 */
export function subscribedEvents(given: readonly string[]): string[] {
  const names = new Set(
    (given.length === 0 ? ["push"] : given.slice(0, MAX_EVENTS_GIVEN)).map((n) => n.toLowerCase()),
  );
  return HOOK_EVENTS.filter((event) => {
    if (event === "issues") return names.has("issues") || names.has("issues_only");
    if (ISSUE_KINDS.has(event)) return names.has(event) || names.has("issues");
    if (event === "pull_request") return names.has("pull_request") || names.has("pull_request_only");
    if (PULL_KINDS.has(event)) return names.has(event) || names.has("pull_request");
    if (REVIEW_KINDS.has(event)) return names.has("pull_request_review") || names.has("pull_request");
    return names.has(event);
  });
}

/** X-Gitea-Event: the issue sub-events arrive as `issues`, the pull-request ones as `pull_request`. */
function groupedEvent(type: string): string {
  if (type === "issue_assign" || type === "issue_label" || type === "issue_milestone") return "issues";
  if (
    ["pull_request_assign", "pull_request_label", "pull_request_milestone", "pull_request_sync"].includes(
      type,
    )
  )
    return "pull_request";
  if (type === "pull_request_comment") return "issue_comment";
  return type;
}

export interface DeliveryRequest {
  method: DeliveryMethod;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** One event for one hook: its fine name (or `ping`) and the payload as Gitea's JSON. */
export interface HookMessage {
  type: string;
  payload: Record<string, unknown>;
  /** repository, organization, user or system. */
  target: string;
  /** The delivery's id, sent in the *-Delivery headers. */
  uuid: string;
}

interface Named {
  login?: string;
  username?: string;
  html_url?: string;
  avatar_url?: string;
}

interface PayloadView {
  repository?: { full_name?: string; html_url?: string };
  sender?: Named;
  ref?: string;
  ref_type?: string;
  action?: string;
  commits?: Array<{ id: string; message: string; url: string }>;
  total_commits?: number;
  compare_url?: string;
  issue?: { number?: number; title?: string; html_url?: string };
  comment?: { body?: string; html_url?: string };
  hook_id?: number;
  context?: string;
  description?: string;
  target_url?: string;
}

function shortRef(ref: string | undefined): string {
  return (ref ?? "").replace(/^refs\/(heads|tags)\//, "");
}

/** One line saying what happened, for the chat hook types; plus a link and detail lines. */
function summary(
  type: string,
  payload: Record<string, unknown>,
): { title: string; url: string; lines: string[] } {
  const view = payload as PayloadView;
  const repo = view.repository?.full_name ?? "";
  // Hooks of an account or of the site ping without a repository.
  const where = repo === "" ? "" : `[${repo}] `;
  const by = view.sender?.login ?? view.sender?.username ?? "";
  const repoUrl = view.repository?.html_url ?? "";
  switch (type) {
    case "ping":
      return {
        title: `${where}Webhook ${view.hook_id ?? ""} pinged by ${by}`,
        url: repoUrl,
        lines: [],
      };
    case "push": {
      const count = view.total_commits ?? 0;
      const lines = (view.commits ?? []).map((c) => `${c.id.slice(0, 10)}: ${c.message.split("\n")[0]}`);
      return {
        title: `[${repo}:${shortRef(view.ref)}] ${count} new commit${count === 1 ? "" : "s"} pushed by ${by}`,
        url: view.compare_url || repoUrl,
        lines,
      };
    }
    case "create":
    case "delete":
      return {
        title: `${where}${view.ref_type ?? "branch"} ${shortRef(view.ref)} ${type === "create" ? "created" : "deleted"} by ${by}`,
        url: repoUrl,
        lines: [],
      };
    case "repository":
      return { title: `${where}Repository ${view.action ?? ""} by ${by}`, url: repoUrl, lines: [] };
    case "issue_comment":
      return {
        title: `${where}New comment on issue #${view.issue?.number ?? ""} ${view.issue?.title ?? ""} by ${by}`,
        url: view.comment?.html_url ?? view.issue?.html_url ?? repoUrl,
        lines: view.comment?.body ? [view.comment.body] : [],
      };
    case "status":
      return {
        title: `${where}Commit Status changed: ${view.context ?? ""} - ${view.description ?? ""}`,
        url: view.target_url || repoUrl,
        lines: [],
      };
    default:
      return {
        title: `${where}Issue ${view.action ?? type}: #${view.issue?.number ?? ""} ${view.issue?.title ?? ""} by ${by}`,
        url: view.issue?.html_url ?? repoUrl,
        lines: [],
      };
  }
}

function slackBody(hook: WebhookRow, message: HookMessage): unknown {
  const meta = JSON.parse(hook.meta) as {
    channel?: string;
    username?: string;
    icon_url?: string;
    color?: string;
  };
  const { title, url, lines } = summary(message.type, message.payload);
  return {
    channel: meta.channel ?? "",
    username: meta.username ?? "",
    icon_url: meta.icon_url ?? "",
    text: url ? `<${url}|${title}>` : title,
    attachments: lines.length ? [{ color: meta.color || "good", text: lines.join("\n") }] : [],
  };
}

function discordBody(message: HookMessage): unknown {
  const { title, url, lines } = summary(message.type, message.payload);
  const sender = (message.payload.sender ?? {}) as Named;
  return {
    embeds: [
      {
        title: title.slice(0, 256),
        description: lines.join("\n").slice(0, 4096),
        url,
        color: 0x4c9a2a,
        author: { name: sender.login ?? "", url: sender.html_url ?? "", icon_url: sender.avatar_url ?? "" },
      },
    ],
  };
}

function msteamsBody(message: HookMessage): unknown {
  const { title, url, lines } = summary(message.type, message.payload);
  return {
    "@type": "MessageCard",
    "@context": "https://schema.org/extensions",
    themeColor: "4c9a2a",
    title,
    summary: title,
    sections: [{ activityTitle: title, text: lines.join("\n\n") }],
    potentialAction: url
      ? [{ "@type": "OpenUri", name: "View in the forge", targets: [{ os: "default", uri: url }] }]
      : [],
  };
}

const CHAT_TYPES = new Set(["slack", "discord", "msteams"]);

/**
 * The payload a hook of this type sends: slack, discord and msteams their own message shapes;
 * every other type (gitea, gogs, and those whose own shapes the forge does not build) Gitea's
 * JSON, indented as Gitea writes it.
 */
function payloadText(hook: WebhookRow, message: HookMessage): string {
  switch (hook.type) {
    case "slack":
      return JSON.stringify(slackBody(hook, message));
    case "discord":
      return JSON.stringify(discordBody(message));
    case "msteams":
      return JSON.stringify(msteamsBody(message));
    default:
      return JSON.stringify(message.payload, null, 2);
  }
}

/**
 * The request that delivers `message` to `hook`. A JSON hook posts the payload; a form hook posts
 * `payload=<the payload>`; GET carries it as the `payload` query parameter. Signatures use the
 * hook's secret: X-Gitea-Signature and X-Gogs-Signature over the payload, as Gitea signs it;
 * X-Hub-Signature(-256) and X-Forge-Signature over the body as sent, as GitHub signs it (the same
 * bytes for JSON hooks), so a receiver checking the raw body verifies form deliveries too.
 */
export function deliveryRequest(hook: WebhookRow, message: HookMessage): DeliveryRequest {
  const payload = payloadText(hook, message);
  // Chat services take their own JSON only, as Gitea sends it them whatever the content type.
  const form = hook.content_type === "form" && !CHAT_TYPES.has(hook.type);
  let url = hook.url;
  let body = payload;
  if (hook.http_method === "GET") {
    const target = new URL(hook.url);
    target.searchParams.set("payload", payload);
    url = target.href;
    body = "";
  } else if (form) body = new URLSearchParams({ payload }).toString();
  const secret = hook.secret;
  const sign = (text: string) => (secret === "" ? "" : signHmacSha256Hex(secret, text));
  const payloadSignature = sign(payload);
  const bodySignature = sign(body);
  const sha1 = secret === "" ? "" : signHmacSha1Hex(secret, body);
  const event = message.type === "ping" ? "ping" : groupedEvent(message.type);
  const headers: Record<string, string> = {
    "user-agent": "anvil-forge-webhook",
    "x-gitea-delivery": message.uuid,
    "x-gitea-event": event,
    "x-gitea-event-type": message.type,
    "x-gitea-signature": payloadSignature,
    "x-gitea-hook-installation-target-type": message.target,
    "x-gogs-delivery": message.uuid,
    "x-gogs-event": event,
    "x-gogs-event-type": message.type,
    "x-gogs-signature": payloadSignature,
    "x-github-delivery": message.uuid,
    "x-github-event": event,
    "x-github-event-type": message.type,
    "x-github-hook-installation-target-type": message.target,
    "x-hub-signature": `sha1=${sha1}`,
    "x-hub-signature-256": `sha256=${bodySignature}`,
    "x-forge-delivery": message.uuid,
    "x-forge-event": event,
    "x-forge-event-type": message.type,
    "x-forge-signature": bodySignature,
  };
  if (body !== "") headers["content-type"] = form ? "application/x-www-form-urlencoded" : "application/json";
  if (hook.authorization_header !== "") headers.authorization = hook.authorization_header;
  return { method: hook.http_method as DeliveryMethod, url, headers, body };
}
