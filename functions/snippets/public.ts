// The snippets domain's public face: the one file another domain may import from it (the layering rule,
// .dependency-cruiser.cjs). The search API (functions/search) finds snippets with this domain's read rules.
export { searchSnippets } from "./queries";
