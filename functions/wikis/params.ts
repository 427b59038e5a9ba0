// The parameters of lib/api/wikis.rb (GitLab 15.4), for project and group wikis alike.
import * as z from "zod";
import { p } from "../kernel/params";
import { USER_FORMATS } from "../shared/wikis/pages";

const format = () => p.oneOf(...USER_FORMATS).default("markdown");

/** GET /:id/wikis */
export const ListWikiPages = z.object({ with_content: p.bool().default(false) });

/** GET /:id/wikis/:slug */
export const ShowWikiPage = z.object({ slug: p.string(), version: p.string().optional(), render_html: p.bool().default(false) });

/** POST /:id/wikis */
export const CreateWikiPage = z.object({ title: p.string(), content: p.string(), format: format() });

/**
 * PUT /:id/wikis/:slug. GitLab declares `at_least_one_of :content, :title, :format`, but `format` has a
 * default that Grape applies first, so the rule never fails: a PUT without parameters is a 200.
 */
export const UpdateWikiPage = z.object({ slug: p.string(), title: p.string().optional(), content: p.string().optional(), format: format() });

/** DELETE /:id/wikis/:slug */
export const DeleteWikiPage = z.object({ slug: p.string() });

/** POST /:id/wikis/attachments */
export const UploadWikiAttachment = z.object({ file: p.file(), branch: p.string().optional() });
