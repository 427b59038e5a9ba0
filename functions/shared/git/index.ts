// The git core (docs/git.md): what domains import. Storage is Postgres (db/schema/repository.ts); a
// project's repository is addressed by `Repo` (`repoOf(project)`: refs by project, objects by pool).
//
//   pure/        no I/O: bytes, object encoding, ref names, line diffs, three-way merge, graph arithmetic
//   store/       Postgres: objects, refs (compare-and-swap), the commit index, trees, history walks, reads
//   operations/  writes made of several store steps (commit files, cherry-pick/revert, branch/tag refs),
//                returning typed outcomes; GitLab's wording for them lives in the calling domain.
export { repoOf, listCommits, resolveRevisions, lastCommitForPath, lastCommitsFrom, parseRange, type Repo, type CommitsQuery, type CommitsResult } from "./store/revisions";
export { findCommit, refsContaining, commitTree, readFileAt, listTree, type FileAt, type TreeListing, type RefType } from "./store/read";
export { objectSizes } from "./store/objects";
export { createBranch, createTag, deleteRefWithEvent } from "./operations/refs";
export {
  commitFiles,
  createInitialCommit,
  normalizePath,
  MAX_ACTIONS,
  MAX_FILE_SIZE,
  type CommitAction,
  type CommitFilesInput,
  type CommitFilesResult,
  type CommitFailure,
  type ProtectionRow,
  type Person,
  planCommit,
  readBranchState,
} from "./operations/commit_files";
export { pickCommit, commitTitle, pickMessage, type PickInput, type PickResult, type PickKind, type PickFailureKind } from "./operations/pick";
export { rebaseBranch, type RebaseResult } from "./operations/rebase";
export { listRefs, readRef, readRefs, refCommit, hasBranches, compareAndSwapRef, swapRefWithEvent, recordPushEvent, copyRefsForFork, type Ref } from "./store/refs";
export { isProhibitedBranchName, isValidBranchName, isValidRefName, branchRef, tagRef, branchName, tagName } from "./pure/refnames";
export { tipsReaching, countCommits } from "./store/reach";
export { commitWalk } from "./store/walk";
export { readCommitRows, readCommitChanges, indexCommits, type CommitToIndex } from "./store/commit_index";
export { unifiedDiff, numstat, isBinary } from "./pure/diff";
export { mergeText, mergeTrees } from "./pure/merge";
export {
  EMPTY_TREE,
  EMPTY_BLOB,
  ZERO_OID,
  TYPE_CODE,
  TYPE_NAME,
  decodeCommit,
  decodeTag,
  decodeTree,
  makeObject,
  hashObject,
  deflate,
  inflate,
  tzText,
  tzMinutes,
  type Commit,
  type Tag,
  type TreeEntry,
  type FileEntry,
  type ObjectSource,
  type ObjectType,
  type RawObject,
} from "./pure/objects";
export { toHex, fromHex, isOid, utf8, decodeUtf8, concatBytes, sha1Hex, toBase64, fromBase64 } from "./pure/bytes";
export { readObjects, readObject, readCommitObject, writeObjects, existingObjects, readTrees, storedRow, INLINE_LIMIT } from "./store/objects";
export { useBlobBucket, blobKey, getBlobZdata, streamBlobZdata, BlobStoreError } from "./store/blobs";
export { storeSource, flattenTree, entryAtPath, entriesAtPath, diffTreePairs, countChanges, type Change, type CountedChange } from "./store/trees";
export { RevWalk, type RevSpec, type LogOptions } from "./store/log";
export { readRefsWithCommits, resolveCommitRows, resolveCommitRow, searchRefs, type RefWithCommit } from "./store/lookup";
export { compareRefNames } from "./store/refs";
export { initializeDefaultBranch } from "./store/repository";
export { readPairTips, type PairTips } from "./store/state";
export { pushedChanges, pushedFiles } from "./store/pushed_files";
export { writeCommitAndMoveRef, type CommitWrite } from "./store/write";
export { buildIndexRows } from "./store/commit_index";
export { diffTrees, fileDiff, MAX_PATCH_BYTES, type FileDiff } from "./store/diffs";
export { mergeBase, commitsBetween, compareCommits, commitDiffs, type Comparison } from "./store/compare";
export { contributors, type Contributor } from "./store/contributors";
export { blameFile, BlameTooLargeError, MAX_BLAME_SUSPECTS, type BlameResult } from "./store/blame";
export { planSnapshot, snapshotTar, type SnapshotPlan } from "./store/snapshot";
export { MissingObjectError } from "./store/reachable";
export { archiveItems, tarArchive, zipArchive, type ArchiveFormat, type ArchiveItem } from "./store/archive";
export { Bzip2Encoder, bzip2Stream } from "./pure/bzip2";
export { mergeTreeOids } from "./operations/three_way";
export {
  checkMergeability,
  sourceCommitCount,
  mergeBranches,
  mergeToRef,
  pairOf,
  type BranchPair,
  type MergeMethod,
  type Mergeability,
  type Checked,
  type MergeInput,
  type MergeResult,
} from "./operations/merge";
