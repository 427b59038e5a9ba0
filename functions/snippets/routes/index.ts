import { router } from "../../kernel/router";
import { personalSnippetRoutes } from "./personal";
import { projectSnippetRoutes } from "./project";

/**
 * Snippets: project snippets (lib/api/project_snippets.rb) and personal snippets (lib/api/snippets.rb).
 * Their files are rows of `snippet_files` (no git repository; see docs/domains.md, "Snippets").
 */
export const snippetsRoutes = router();
snippetsRoutes.route("/", projectSnippetRoutes);
snippetsRoutes.route("/", personalSnippetRoutes);
