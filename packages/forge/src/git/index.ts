// The forge's git layer: repository storage, reads for the REST API, and smart HTTP transport.

export { ARCHIVE_FORMATS, type ArchiveFormat, startArchive } from "./archive.ts";
export { type AutoInitOptions, autoInit, type NewSignature } from "./auto-init.ts";
export { batchCheck } from "./batch-check.ts";
export { type Branch, type BranchPage, defaultBranch, getBranch, listBranches } from "./branches.ts";
export { GitCommandError, type GitExit } from "./command-error.ts";
export { type Commit, readCommits, type Signature } from "./commit.ts";
export { type CommitChanges, readCommitChanges } from "./commit-changes.ts";
export { commitFiles, type FileWrite, type NewCommit } from "./commit-files.ts";
export {
  type CommitPage,
  type CommitQuery,
  type Comparison,
  compareCommits,
  EmptyRepository,
  getCommit,
  listCommits,
  resolveCommit,
} from "./commits.ts";
export { gitEnvironment } from "./environment.ts";
export { type GitOutput, gitOutput } from "./git-output.ts";
export { GitHttpError } from "./http-error.ts";
export { NOTES_REF, type Note, readNote } from "./notes.ts";
export { closeObjectReaders } from "./object-reader.ts";
export { type AnnotatedTag, type Blob, readAnnotatedTag, readBlob, resolveObject } from "./objects.ts";
export type { PageRequest } from "./paging.ts";
export { FLUSH_PACKET, pktLine } from "./pkt-line.ts";
export { type GitProcess, type SpawnGitOptions, spawnGit } from "./process.ts";
export { gitProtocolEnvironment } from "./protocol.ts";
export {
  type CommitIdentity,
  changedFiles,
  commitsBetween,
  commitTree,
  diffText,
  type FileChange,
  fetchRef,
  gitDate,
  isAncestor,
  isCommitId,
  MAX_PULL_COMMITS,
  mergeBase,
  mergeTrees,
  moveRef,
  replayCommits,
  setRef,
  type TreeMerge,
} from "./pulls.ts";
export { type PushRule, pushRulesEnvironment } from "./push-rules.ts";
export { type RawDiffType, rawDiff } from "./raw-diff.ts";
export { checkBranchName, checkRevision, checkTagName, isBranchName, isTagName } from "./ref-name.ts";
export { type RefChange, RefUpdateRefused, updateRefs, ZERO_ID } from "./ref-updates.ts";
export { listReferences, type Reference } from "./references.ts";
export { commitFileChanges, pushedCommits, refTips } from "./refs.ts";
export { isPlainName, ownerPath, repositoryPath } from "./repository-path.ts";
export { type GitResult, type RunGitOptions, runGit, runGitForBytes } from "./run.ts";
export {
  DEFAULT_MAX_REQUEST_BYTES,
  type GitService,
  isGitService,
  type RpcOptions,
  registerGitContentTypes,
  serveInfoRefs,
  serveRpc,
} from "./smart-http.ts";
export {
  discardRepository,
  listStoredRepositories,
  listTrash,
  moveToTrash,
  readRepositoryRowId,
  setAside,
  stageClone,
  stageRepository,
  sweepLeftovers,
  writeRepositoryRowId,
} from "./staging.ts";
export {
  initRepository,
  isEmpty,
  placeRepository,
  type RepositoryName,
  renameOwner,
  renameRepository,
  repositoryExists,
  setDefaultBranch,
} from "./storage.ts";
export { createTag, deleteTag, getTag, listTags, type NewTag, type Tag } from "./tags.ts";
export { type GitTransportPath, type GitTransportSubPath, parseGitTransportPath } from "./transport-path.ts";
export {
  eachBlob,
  fileAt,
  type LastCommit,
  lastCommitOf,
  lastCommitsIn,
  lastCommitsOf,
  listDirectory,
  MAX_DIRECTORY_ENTRIES,
  type ResolvedRef,
  readBlobBytes,
  readSmallBlobs,
  resolveRef,
  resolveRefPrefix,
  streamBlob,
  submoduleUrls,
  treeEntries,
  treeEntry,
  treePathProblem,
} from "./tree.ts";
export { listTreePage, type TreeEntry, type TreePage, type TreeQuery } from "./trees.ts";
