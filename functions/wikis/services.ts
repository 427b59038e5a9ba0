// Wiki page writes (WikiPages::CreateService, UpdateService, DestroyService; Wikis::CreateAttachmentService;
// app/models/wiki.rb, wiki_page.rb): validation, one commit on the wiki's branch, GitLab's messages.
import type { User } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { apiError, validation } from "../kernel/errors";
import { toBase64, type CommitAction, type CommitFailure } from "../shared/git";
import { commitFailureMessage } from "../shared/git/operations/messages";
import { loadSettings } from "../shared/settings/load";
import { formatExtension, markdownLink, pageErrors, pagePath, processTitle, sluggifiedTitle, slugOf, titleOf, truncateFileName } from "../shared/wikis/pages";
import { commitToWiki, findPage, pageText, type Page, type WikiRow } from "../shared/wikis/store";

export type Writer = Pick<User, "id" | "name" | "username" | "email" | "commitEmail">;

const gitUser = (user: Writer) => ({ id: user.id, name: user.name, email: user.commitEmail || user.email });

/** Wiki#default_message. */
const defaultMessage = (user: Writer, action: "created" | "updated" | "deleted", title: string) => `${user.username} ${action} page: ${title}`;

/** A page as written: what the entity shows and the hook names. */
export type WrittenPage = { path: string; slug: string; title: string; format: string; content: string; encoding: string; commit: string };

async function maxContentBytes(db: Executor): Promise<number> {
  return Number((await loadSettings(db)).wiki_page_max_content_bytes);
}

/** `Duplicate page: …` (Wiki#duplicated_page_error), as the page's `base` error. */
const duplicate = (path: string) => validation({ base: [`Duplicate page: A page with that title already exists in the file ${path}`] });

/** A failed commit as the page's `base` error (Wiki#capture_git_error keeps the message). */
function commitFailed(failure: CommitFailure | { kind: "forbidden" }, path: string) {
  if (failure.kind === "file_exists" || failure.kind === "directory_exists") return duplicate(path);
  // Differs from GitLab: the git error's text is the git core's wording of the failure.
  return validation({ base: [failure.kind === "forbidden" ? "You are not allowed to push to the wiki" : commitFailureMessage(failure)] });
}

/** WikiPages::CreateService: WikiPage#create with GitLab's validations, then Wiki#create_page. */
export async function createPage(db: Executor, wiki: WikiRow, user: Writer, params: { title: string; content: string; format: string }): Promise<WrittenPage> {
  const title = processTitle(params.title, null);
  const errors = pageErrors({ title, titleChanged: title.trim() !== "", content: params.content, contentChanged: params.content !== "", maxContentBytes: await maxContentBytes(db) });
  if (errors) throw validation(errors);
  const path = pagePath(title, formatExtension(params.format));
  // Wiki#file_exists_by_regex?: the same title in any format or capitalisation is taken.
  if (await findPage(db, wiki, title)) throw duplicate(path);
  const result = await commitToWiki(db, wiki, {
    actions: [{ action: "create", filePath: path, content: params.content }],
    message: defaultMessage(user, "created", title),
    user: gitUser(user),
  });
  if (!result.ok) throw commitFailed(result.failure, path);
  return { path, slug: slugOf(path), title: titleOf(path), format: params.format, content: params.content, encoding: "UTF-8", commit: result.commit };
}

/**
 * WikiPages::UpdateService: WikiPage#update (a new title stays in the page's directory unless it names
 * one; the same format keeps the file's extension), then Wiki#update_page (a rename is a move).
 */
export async function updatePage(db: Executor, wiki: WikiRow, page: Page, user: Writer, params: { title?: string; content?: string; format: string }): Promise<WrittenPage> {
  const newTitle = params.title !== undefined && params.title.trim() !== "" ? processTitle(params.title, page.slug) : null;
  const oldText = pageText(page.content).text;
  const content = params.content ?? oldText;
  // WikiPage#title_changed?: the unhyphenated base name or, for a title with a directory, the directory.
  const unhyphen = (s: string) => s.replace(/-+/g, " ");
  const split = (s: string) => {
    const i = s.lastIndexOf("/");
    return i < 0 ? ["", s] : [s.slice(0, i), s.slice(i + 1)];
  };
  const [oldDir, oldName] = split(unhyphen(page.slug));
  const [newDir, newName] = newTitle ? split(unhyphen(newTitle)) : [oldDir, oldName];
  const titleChanged = newTitle !== null && (newName !== oldName || (newTitle.includes("/") && newDir !== oldDir));
  const contentChanged = params.content !== undefined && content.split(/\r?\n/).join("\n") !== oldText.split(/\r?\n/).join("\n");
  const errors = pageErrors({ title: newTitle ?? page.title, titleChanged, content, contentChanged, maxContentBytes: await maxContentBytes(db) });
  if (errors) throw validation(errors);
  if (newTitle && titleChanged && (await findPage(db, wiki, newTitle))) {
    // Differs from GitLab: WikiPage::PageRenameError reaches the API without model errors, and 15.4
    // answers it with an empty body; this is its message as a 400.
    throw validation({ base: ["There is already a page with the same title in that path."] });
  }
  const title = newTitle ?? page.slug;
  const extension = page.format !== params.format ? formatExtension(params.format) : page.path.slice(page.path.lastIndexOf(".") + 1).toLowerCase();
  const path = `${sluggifiedTitle(title)}.${extension}`;
  const action: CommitAction = path === page.path ? { action: "update", filePath: path, content } : { action: "move", filePath: path, previousPath: page.path, content };
  const result = await commitToWiki(db, wiki, { actions: [action], message: defaultMessage(user, "updated", title), user: gitUser(user) });
  if (!result.ok) throw commitFailed(result.failure, path);
  return { path, slug: slugOf(path), title: titleOf(path), format: params.format, content, encoding: "UTF-8", commit: result.commit };
}

/** WikiPages::DestroyService: Wiki#delete_page. */
export async function deletePage(db: Executor, wiki: WikiRow, page: Page, user: Writer): Promise<void> {
  const result = await commitToWiki(db, wiki, {
    actions: [{ action: "delete", filePath: page.path }],
    message: defaultMessage(user, "deleted", page.title),
    user: gitUser(user),
  });
  // DestroyService answers a failed deletion with 422 and its message.
  if (!result.ok) throw apiError("Could not delete wiki page", 422);
}

/**
 * Wikis::CreateAttachmentService: the file at `uploads/<32 hex>/<name>` on `branch` (else the wiki's
 * default branch), committed as "Upload attachment <name>"; failures are 400 with the service's message.
 */
export async function uploadAttachment(db: Executor, wiki: WikiRow, user: Writer, file: File, branch: string | undefined) {
  const fileName = file.name ? truncateFileName(file.name) : null;
  if (!fileName) throw apiError("The file name cannot be empty", 400);
  const hex = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const filePath = `uploads/${hex}/${fileName}`;
  const target = branch || wiki.defaultBranch;
  const result = await commitToWiki(db, wiki, {
    actions: [{ action: "create", filePath, content: toBase64(new Uint8Array(await file.arrayBuffer())), encoding: "base64" }],
    message: `Upload attachment ${fileName}`,
    user: gitUser(user),
    branch: target,
  });
  if (!result.ok) throw apiError(result.failure.kind === "forbidden" ? "You are not allowed to push to the wiki" : commitFailureMessage(result.failure), 400);
  return { fileName, filePath, branch: target, markdown: markdownLink(fileName, filePath), commit: result.commit };
}
