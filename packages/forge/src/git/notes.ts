import { COMMIT_LOG_FORMAT, type Commit, parseCommitLog } from "./commit.ts";
import { resolveObject } from "./objects.ts";
import { runGit } from "./run.ts";

/** Gitea reads the notes of git's default notes ref only. */
export const NOTES_REF = "refs/notes/commits";

// A note is a line or a paragraph; a larger one is read up to this and refused past it.
const MAX_NOTE_BYTES = 1024 * 1024;

export interface Note {
  /** The commit the note is about. */
  target: string;
  message: string;
  /** The commit of the notes ref that last wrote the note, as Gitea answers it. */
  commit: Commit;
}

/** The note on the commit `revision` names, or undefined when it names none or has no note. */
export async function readNote(repoPath: string, revision: string): Promise<Note | undefined> {
  const target = await resolveObject(repoPath, revision, "commit");
  if (!target || !(await resolveObject(repoPath, NOTES_REF, "commit"))) return undefined;
  const gitDir = `--git-dir=${repoPath}`;
  // `notes list <id>` prints the note's blob, or fails when the commit has none.
  const listed = await runGit([gitDir, "notes", `--ref=${NOTES_REF}`, "list", target], {
    acceptExitCodes: [1],
  });
  const blob = listed.stdout.trim();
  if (listed.exitCode !== 0 || blob === "") return undefined;
  // The note's file is named by the commit id, split into fan-out folders as the notes grow.
  const paths = [0, 1, 2, 3].map((depth) => {
    const folders = Array.from({ length: depth }, (_, i) => target.slice(i * 2, i * 2 + 2));
    return [...folders, target.slice(depth * 2)].join("/");
  });
  const [message, log] = await Promise.all([
    runGit([gitDir, "cat-file", "blob", blob], { maxOutputBytes: MAX_NOTE_BYTES }),
    runGit([gitDir, "log", "-1", ...COMMIT_LOG_FORMAT, NOTES_REF, "--", ...paths]),
  ]);
  const [commit] = parseCommitLog(log.stdout);
  return commit && { target, message: message.stdout, commit };
}
