import { Invalid } from "@anvil/core";
import { addTopic, deleteTopic, replaceTopics, topicsOfRepository } from "../repositories/repos.ts";
import { ACCESS_ADMIN, ACCESS_READ } from "./access.ts";
import type { ForgeDatabase } from "./accounts.ts";
import { type RepositoryContext, requireAccess } from "./repositories.ts";

// Gitea's topic rules: lower-case letters, digits, dashes and dots, starting with a letter or
// digit, at most 35 characters, at most 25 per repository.
const TOPIC = /^[a-z0-9][-.a-z0-9]*$/;
const MAX_TOPIC_LENGTH = 35;
const MAX_TOPICS = 25;

function normalize(topics: string[]): string[] {
  const cleaned = [
    ...new Set(topics.map((topic) => topic.trim().toLowerCase()).filter((topic) => topic !== "")),
  ];
  const invalid = cleaned.filter((topic) => topic.length > MAX_TOPIC_LENGTH || !TOPIC.test(topic));
  if (invalid.length > 0) throw new Invalid(`invalid topics: ${invalid.join(", ")}`);
  if (cleaned.length > MAX_TOPICS)
    throw new Invalid(`Exceeding maximum number of topics per repo (${MAX_TOPICS})`);
  return cleaned.sort();
}

export async function repositoryTopics(
  database: ForgeDatabase,
  context: RepositoryContext,
): Promise<string[]> {
  requireAccess(context, ACCESS_READ);
  return topicsOfRepository(database.db, context.repository.id);
}

export async function setTopics(
  database: ForgeDatabase,
  context: RepositoryContext,
  topics: string[],
): Promise<void> {
  requireAccess(context, ACCESS_ADMIN);
  await replaceTopics(database.db, context.repository.id, normalize(topics));
}

export async function addRepositoryTopic(
  database: ForgeDatabase,
  context: RepositoryContext,
  topic: string,
): Promise<void> {
  requireAccess(context, ACCESS_ADMIN);
  const [name] = normalize([topic]);
  if ((await repositoryTopics(database, context)).length >= MAX_TOPICS)
    throw new Invalid(`Exceeding maximum number of topics per repo (${MAX_TOPICS})`);
  await addTopic(database.db, context.repository.id, name);
}

export async function removeRepositoryTopic(
  database: ForgeDatabase,
  context: RepositoryContext,
  topic: string,
): Promise<void> {
  requireAccess(context, ACCESS_ADMIN);
  await deleteTopic(database.db, context.repository.id, topic.toLowerCase());
}
