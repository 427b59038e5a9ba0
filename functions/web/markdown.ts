/**
 * Rendered Markdown (the API's `*_html`, functions/shared/markdown/render.ts) as a page embeds it.
 * GitLab's heading anchors are `aria-hidden` links, which keyboard focus would still reach (axe-core's
 * `aria-hidden-focus`): on a page they leave the tab order. The API's HTML stays GitLab's.
 */
export function markdownForPage(html: string): string {
  return html.replace(/(<a id="user-content-[^"]*" class="anchor" href="#[^"]*" aria-hidden="true")><\/a>/g, '$1 tabindex="-1"></a>');
}
