// Wiki repositories and their pages (app/models/wiki.rb, project_wiki.rb, group_wiki.rb; docs/git.md).
// A wiki is a git repository of its own, keyed `-wikis.id` in the git core (db/schema/wikis.ts), made on
// its first write; its pages are the files with a markup extension on its default branch. Pages are
// read from the tree (no table of pages), so pages pushed with git are pages of the API at once.
import { eq } from "drizzle-orm";
import { wikis, type WikiRow } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { branchRef, commitFiles, commitTree, decodeUtf8, findCommit, flattenTree, readFileAt, readObjects, readRef, refCommit, storeSource, type CommitAction, type CommitFailure, type Repo } from "../git";
import { comparePaths } from "../git/store/trees";
import { loadSettings } from "../settings/load";
import { isPagePath, matchPage, pageFormat, slugOf, titleOf } from "./pages";

export type { WikiRow };

/** Whose wiki: a project's or a group's (GroupWiki, EE). */
export type WikiContainer = { projectId: number } | { groupId: number };

const containerCondition = (container: WikiContainer) =>
  "projectId" in container ? eq(wikis.projectId, container.projectId) : eq(wikis.groupId, container.groupId);

/** The wiki's repository in the git core: refs and objects under minus its id, no push events. */
export const wikiRepo = (wiki: WikiRow): Repo => ({ projectId: -wiki.id, poolId: -wiki.id, defaultBranch: wiki.defaultBranch, pushEvents: false });

/** The wiki of a container, null while nothing was ever written to it (GitLab: no repository yet). */
export async function findWiki(db: Executor, container: WikiContainer): Promise<WikiRow | null> {
  const rows = await db.select().from(wikis).where(containerCondition(container)).limit(1);
  return rows[0] ?? null;
}

/**
 * The wiki of a container, created when missing (Wiki#create_wiki_repository) with HEAD on the
 * instance's default branch name, else `main` (Gitlab::DefaultBranch.value). Concurrent first writers
 * get the same row.
 */
export async function ensureWiki(db: Executor, container: WikiContainer): Promise<WikiRow> {
  const found = await findWiki(db, container);
  if (found) return found;
  const branch = String((await loadSettings(db)).default_branch_name ?? "").trim() || "main";
  const values = "projectId" in container ? { projectId: container.projectId, defaultBranch: branch } : { groupId: container.groupId, defaultBranch: branch };
  await db.insert(wikis).values(values).onConflictDoNothing();
  const row = await findWiki(db, container);
  if (!row) throw new Error("wiki row missing after insert");
  return row;
}

export type PageFile = { path: string; slug: string; title: string; format: string; oid: string };
export type Page = PageFile & { content: Uint8Array; commit: { oid: string; message: string } };

/** The default branch's tip and root tree; null for an empty wiki. */
async function headTree(db: Executor, wiki: WikiRow): Promise<{ oid: string; tree: string } | null> {
  const repo = wikiRepo(wiki);
  const ref = await readRef(db, repo.projectId, branchRef(wiki.defaultBranch));
  if (!ref) return null;
  const oid = refCommit(ref);
  const tree = await commitTree(db, repo, oid);
  return tree ? { oid, tree } : null;
}

/** Every page file of a tree, in path order (bytewise). */
async function pageFiles(db: Executor, wiki: WikiRow, tree: string): Promise<PageFile[]> {
  const files = await flattenTree(storeSource(db, -wiki.id), tree);
  const out: PageFile[] = [];
  for (const file of files.values()) {
    if (file.mode !== "100644" && file.mode !== "100755") continue;
    if (!isPagePath(file.path)) continue;
    out.push({ path: file.path, slug: slugOf(file.path), title: titleOf(file.path), format: pageFormat(file.path), oid: file.oid });
  }
  return out.sort((a, b) => comparePaths(a.path, b.path));
}

/** Wiki#list_pages on the default branch, with the files' bytes when asked; [] for an empty wiki. */
export async function listPages(db: Executor, wiki: WikiRow | null, withContent: boolean): Promise<(PageFile & { content?: Uint8Array })[]> {
  if (!wiki) return [];
  const head = await headTree(db, wiki);
  if (!head) return [];
  const pages = await pageFiles(db, wiki, head.tree);
  if (!withContent || pages.length === 0) return pages;
  const blobs = await readObjects(db, -wiki.id, pages.map((p) => p.oid));
  return pages.map((p) => ({ ...p, content: blobs.get(p.oid)?.body ?? new Uint8Array() }));
}

/**
 * Wiki#find_page: the page named by a title or slug at `version` (any revision; the default branch when
 * absent), with its bytes and the commit of that version. Null when the wiki, the version or the page
 * does not exist.
 */
export async function findPage(db: Executor, wiki: WikiRow | null, title: string, version?: string | null): Promise<Page | null> {
  if (!wiki || title.trim() === "") return null;
  const repo = wikiRepo(wiki);
  const commit = await findCommit(db, repo, version || wiki.defaultBranch);
  if (!commit) return null;
  const files = await pageFiles(db, wiki, commit.tree);
  const path = matchPage(files.map((f) => f.path), title);
  const file = path ? files.find((f) => f.path === path)! : null;
  if (!file) return null;
  const blob = (await readObjects(db, -wiki.id, [file.oid])).get(file.oid);
  return { ...file, content: blob?.body ?? new Uint8Array(), commit: { oid: commit.oid.trim(), message: commit.message } };
}

/** A page's text as Ruby reads it: UTF-8 (invalid bytes replaced), and the encoding's name. */
export function pageText(bytes: Uint8Array): { text: string; encoding: string } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), encoding: "UTF-8" };
  } catch {
    return { text: decodeUtf8(bytes), encoding: "ASCII-8BIT" };
  }
}

export type WikiCommitResult = { ok: true; commit: string } | { ok: false; failure: CommitFailure | { kind: "forbidden" } };

/** One commit on the wiki's branch (`branch`, else its default): author and committer the user. */
export async function commitToWiki(
  db: Executor,
  wiki: WikiRow,
  input: { actions: CommitAction[]; message: string; user: { id: number; name: string; email: string }; branch?: string | null },
): Promise<WikiCommitResult> {
  const result = await commitFiles(db, wikiRepo(wiki), {
    branch: input.branch || wiki.defaultBranch,
    actions: input.actions,
    message: input.message,
    committer: { name: input.user.name, email: input.user.email },
    userId: input.user.id,
  });
  return result.ok ? { ok: true, commit: result.commit.oid.trim() } : result;
}

/** Whether a wiki has any page on its default branch (Wiki#empty? is its negation). */
export async function hasPages(db: Executor, wiki: WikiRow | null): Promise<boolean> {
  return (await listPages(db, wiki, false)).length > 0;
}

/**
 * The page file `path` of wiki `wikiId` at commit `sha`, as a hook payload shows it (title, raw content,
 * format, slug, the commit's message and id); null when the wiki, commit or file is gone.
 */
export async function wikiPageAt(db: Executor, wikiId: number, path: string, sha: string) {
  const rows = await db.select().from(wikis).where(eq(wikis.id, wikiId)).limit(1);
  const wiki = rows[0];
  if (!wiki) return null;
  const repo = wikiRepo(wiki);
  const commit = await findCommit(db, repo, sha);
  if (!commit) return null;
  const file = await readFileAt(db, repo, commit.tree, path);
  if (!file) return null;
  return {
    defaultBranch: wiki.defaultBranch,
    page: { title: titleOf(path), content: pageText(file.content).text, format: pageFormat(path), slug: slugOf(path), message: commit.message, versionId: commit.oid.trim() },
  };
}

/**
 * The page changes of a push to the wiki's default branch, `before` → `after` (Git::WikiPushService,
 * net over the push): pages added (`create`, read at `after`), changed (`update`) and removed (`delete`,
 * read at `before`). Other branches change no page.
 */
export async function pushedPageChanges(db: Executor, wiki: WikiRow, change: { ref: string; before: string; after: string }) {
  const out: { action: "create" | "update" | "delete"; path: string; sha: string }[] = [];
  if (change.ref !== branchRef(wiki.defaultBranch)) return out;
  const repo = wikiRepo(wiki);
  const zero = /^0{40}$/;
  const pagesAt = async (sha: string) => {
    if (zero.test(sha)) return new Map<string, string>();
    const tree = await commitTree(db, repo, sha);
    if (!tree) return new Map<string, string>();
    return new Map((await pageFiles(db, wiki, tree)).map((p) => [p.path, p.oid]));
  };
  const [old, now] = [await pagesAt(change.before), await pagesAt(change.after)];
  for (const [path, oid] of now) {
    if (!old.has(path)) out.push({ action: "create", path, sha: change.after });
    else if (old.get(path) !== oid) out.push({ action: "update", path, sha: change.after });
  }
  for (const path of old.keys()) if (!now.has(path)) out.push({ action: "delete", path, sha: change.before });
  return out;
}
