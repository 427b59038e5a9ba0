/**
 * Rendered Markdown (the API's `*_html`, functions/shared/markdown/render.ts) as a page embeds it.
 * GitLab's heading anchors are `aria-hidden` links, which keyboard focus would still reach (axe-core's
 * `aria-hidden-focus`): on a page they leave the tab order. A task list's checkboxes have no label
 * (axe-core's `label`): on a page each is named by its item's text. The API's HTML stays GitLab's.
 */
export function markdownForPage(html: string): string {
  return html
    .replace(/(<a id="user-content-[^"]*" class="anchor" href="#[^"]*" aria-hidden="true")><\/a>/g, '$1 tabindex="-1"></a>')
    .replace(/(<input [^>]*class="task-list-item-checkbox"[^>]*?)(\s*\/?)>([^<]*)/g, (_all, input: string, close: string, text: string) => {
      // `text` is the renderer's escaped HTML up to the next tag; only a quote could end the attribute.
      const label = text.trim().replace(/"/g, "&quot;") || "Task";
      return `${input} aria-label="${label}"${close}>${text}`;
    });
}
