// The messages Snipe-IT posts to the webhook of its settings (its Slack / Microsoft Teams /
// general integration) for a check-out, a check-in or an audit: Slack's incoming-webhook JSON as
// Laravel's Slack channel builds it (the "general" webhook posts the same), and Teams' connector
// MessageCard as the microsoft-teams notification channel builds it, in Snipe-IT's English words.

/** A row as a chat message names and links it. */
export interface Named {
  name: string;
  url: string;
}

/** What a chat message says of one event. */
export interface ChatFacts {
  kind: ChatKind;
  item: Named;
  /** Whom or what it went to (a check-out). */
  target?: Named;
  /** Who did it. */
  admin: Named;
  note: string | null;
  /** An asset's expected check-in day (a check-out), its status label and location (a check-in, an audit). */
  expectedCheckin?: string | null;
  status?: string | null;
  location?: string | null;
  /** Units checked out (accessories). */
  quantity?: number;
}

/** The events Snipe-IT tells its chat webhook of. */
export type ChatKind =
  | "asset.checkout"
  | "asset.checkin"
  | "asset.audit"
  | "accessory.checkout"
  | "consumable.checkout"
  | "component.checkout"
  | "license.checkout";

export const CHAT_KINDS: ReadonlySet<string> = new Set<ChatKind>([
  "asset.checkout",
  "asset.checkin",
  "asset.audit",
  "accessory.checkout",
  "consumable.checkout",
  "component.checkout",
  "license.checkout",
]);

/** What each kind's messages are titled, with Slack's leading emoji, as Snipe-IT words them. */
const TITLES: Record<ChatKind, { slack: string; teams: string }> = {
  "asset.checkout": { slack: ":arrow_up: :computer: Asset checked out", teams: "Asset checked out" },
  "asset.checkin": { slack: ":arrow_down: :computer: Asset checked in", teams: "Asset checked in" },
  "asset.audit": { slack: "Asset Audited", teams: "Asset audited" },
  "accessory.checkout": {
    slack: ":arrow_up: :keyboard: Accessory Checked Out",
    teams: "Accessory checked out",
  },
  "consumable.checkout": {
    slack: ":arrow_up: :paperclip: Consumable Checked Out",
    teams: "Consumable checked out",
  },
  "component.checkout": {
    slack: ":arrow_up: :package: Component checked out",
    teams: "Component checked out",
  },
  "license.checkout": { slack: ":arrow_up: :floppy_disk: License Checked Out", teams: "License checked out" },
};

/** Slack's link markup: `<url|text>`. */
function link(named: Named): string {
  return `<${named.url}|${named.name}>`;
}

function slackFields(facts: ChatFacts): [string, string][] {
  const by = link(facts.admin);
  switch (facts.kind) {
    case "asset.checkin":
      return [
        ["Administrator", by],
        ["Status", facts.status ?? ""],
        ["Location", facts.location ?? ""],
      ];
    case "asset.audit": {
      const fields: [string, string][] = [["By", by]];
      if (facts.note) fields.push(["Notes", facts.note]);
      if (facts.location) fields.push(["Location", facts.location]);
      return fields;
    }
    default: {
      const fields: [string, string][] = [
        ["To", facts.target ? link(facts.target) : ""],
        ["By", by],
      ];
      if (facts.kind === "asset.checkout" && facts.expectedCheckin)
        fields.push(["Expected Checkin", facts.expectedCheckin]);
      return fields;
    }
  }
}

/**
 * Slack's JSON: Laravel leaves out every empty value (a channel not set, an attachment without a
 * note), so they are left out here too. An audit is a "success" message, which colours it "good".
 */
export function slackMessage(facts: ChatFacts, settings: { channel: string | null; botname: string | null }) {
  const title =
    facts.kind === "accessory.checkout" ? `${facts.quantity ?? 1} x ${facts.item.name}` : facts.item.name;
  const attachment: Record<string, unknown> = {};
  if (facts.kind === "asset.audit") attachment.color = "good";
  attachment.fields = slackFields(facts).map(([name, value]) => ({ title: name, value, short: true }));
  // An audit's note is one of its fields; the others carry it as the attachment's text.
  if (facts.note && facts.kind !== "asset.audit") attachment.text = facts.note;
  attachment.title = title;
  attachment.title_link = facts.item.url;
  const message: Record<string, unknown> = { text: TITLES[facts.kind].slack, attachments: [attachment] };
  if (settings.channel) message.channel = settings.channel;
  message.username = settings.botname || "Snipe-Bot";
  return message;
}

type Fact = { name: string; value: string };

/** A MessageCard's sections, in the order the notification first names them. */
class Sections {
  readonly #sections = new Map<string, { startGroup?: boolean; facts?: Fact[] }>();

  #section(id: string) {
    let section = this.#sections.get(id);
    if (!section) {
      section = {};
      this.#sections.set(id, section);
    }
    return section;
  }

  startGroup(id: string): this {
    this.#section(id).startGroup = true;
    return this;
  }

  fact(name: string, value: string, id = "standard_section"): this {
    const section = this.#section(id);
    section.facts = [...(section.facts ?? []), { name, value }];
    return this;
  }

  toJSON() {
    return [...this.#sections.values()];
  }
}

function teamsSections(facts: ChatFacts): Sections {
  const title = TITLES[facts.kind].teams;
  const by = `${title} by `;
  const note = facts.note ?? "";
  const assignedTo = facts.target?.name ?? "";
  switch (facts.kind) {
    case "asset.checkout":
      return new Sections()
        .startGroup("activityText")
        .fact("Assigned To", assignedTo)
        .fact(facts.item.name, "", "activityText")
        .fact(by, facts.admin.name)
        .fact("Notes", note);
    case "asset.checkin":
      return new Sections()
        .startGroup("activityText")
        .fact(facts.item.name, "", "activityText")
        .fact("Checked into", facts.location ?? "")
        .fact(by, facts.admin.name)
        .fact("Status", facts.status ?? "")
        .fact("Notes", note);
    case "asset.audit":
      return new Sections()
        .startGroup("activityText")
        .fact("Asset", facts.item.name)
        .fact("Administrator", facts.admin.name);
    case "accessory.checkout":
      return new Sections()
        .startGroup("activityTitle")
        .startGroup("activityText")
        .fact(facts.item.name, "", "activityTitle")
        .fact("Assigned To", assignedTo)
        .fact("QTY", String(facts.quantity ?? 1))
        .fact("Checked out from", facts.location ?? "")
        .fact(by, facts.admin.name)
        .fact("Notes", note);
    default:
      return new Sections()
        .startGroup("activityTitle")
        .startGroup("activityText")
        .fact(facts.item.name, "", "activityTitle")
        .fact(by, facts.admin.name)
        .fact("Assigned To", assignedTo)
        .fact("Notes", note);
  }
}

/** Teams' connector card: a "success" card (its green), titled and summarized alike. */
export function teamsMessage(facts: ChatFacts) {
  const title = TITLES[facts.kind].teams;
  return {
    "@type": "MessageCard",
    "@context": "https://schema.org/extensions",
    summary: title,
    themeColor: "#4CAF50",
    text: "",
    title,
    sections: teamsSections(facts).toJSON(),
  };
}
