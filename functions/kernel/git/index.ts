// The git core (GIT.md): what domains import. Storage is Postgres (db/schema/repository.ts); a
// project's repository is addressed by `Repo` (`repoOf(project)`: refs by project, objects by pool).
export { repoOf, listCommits, resolveRevisions, lastCommitForPath, parseRange, type Repo, type CommitsQuery, type CommitsResult } from "./revision";
export { findCommit, refsContaining, commitTree, readFileAt, listTree, type FileAt, type TreeListing, type RefType } from "./read";
export {
  commitFiles,
  createInitialCommit,
  createBranch,
  createTag,
  deleteRefWithEvent,
  normalizePath,
  MAX_ACTIONS,
  MAX_FILE_SIZE,
  type CommitAction,
  type CommitFilesInput,
  type CommitFilesResult,
  type Person,
} from "./write";
export { pickCommit, commitTitle, pickMessage, pickFailureMessage, type PickInput, type PickResult, type PickKind } from "./pick";
export { listRefs, readRef, readRefs, refCommit, hasBranches, compareAndSwapRef, recordPushEvent, type Ref } from "./refs";
export { isValidBranchName, isValidRefName, branchRef, tagRef, branchName, tagName } from "./refname";
export { readCommitRows, readCommitChanges, indexCommits } from "./commit-index";
export { unifiedDiff, numstat, isBinary } from "./diff";
export { mergeText, mergeTrees } from "./merge";
export { EMPTY_TREE, EMPTY_BLOB, ZERO_OID, decodeCommit, decodeTag, decodeTree, tzText, tzMinutes, type Commit, type Tag, type TreeEntry, type RawObject } from "./objects";
export { readObjects, writeObjects, readTrees } from "./store";
export { RevWalk, type RevSpec, type LogOptions } from "./log";
export { readRefsWithCommits, resolveCommitRows, resolveCommitRow, searchRefs, type RefWithCommit } from "./lookup";
export { compareRefNames } from "./refs";
