import * as linguist from "linguist-languages";

/**
 * Language detection for `GET /projects/:id/languages` (Gitaly's CommitLanguages, go-enry): each file of
 * the default branch's tree is given a language by its file name, else its extension, from GitHub
 * Linguist's data (the `linguist-languages` package); only programming and markup languages count, by
 * bytes, as Gitaly does. Pure: the route reads the tree and the blob sizes through the git core.
 * Differs from GitLab: no content-based disambiguation (see `pick` for an extension several languages
 * claim) and no vendored, generated or documentation exclusions (enry's path rules).
 */
type Lang = { name: string; type: string; extensions?: readonly string[]; filenames?: readonly string[] };

type Index = { byFilename: Map<string, Lang[]>; byExtension: Map<string, Lang[]> };
let index: Index | null = null;

function buildIndex(): Index {
  const byFilename = new Map<string, Lang[]>();
  const byExtension = new Map<string, Lang[]>();
  const add = (map: Map<string, Lang[]>, key: string, lang: Lang) => {
    const list = map.get(key);
    if (list) list.push(lang);
    else map.set(key, [lang]);
  };
  const all = Object.values(linguist as unknown as Record<string, Lang>).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const lang of all) {
    for (const name of lang.filenames ?? []) add(byFilename, name, lang);
    for (const ext of lang.extensions ?? []) add(byExtension, ext.toLowerCase(), lang);
  }
  return { byFilename, byExtension };
}

/** How widely a language's names are used: its extensions and file names. */
const reach = (l: Lang) => (l.extensions?.length ?? 0) + (l.filenames?.length ?? 0);

/**
 * Several languages may claim a name: the one whose primary extension it is wins, then the one that
 * claims the most extensions and file names (`.md` is Markdown, not GCC Machine Description), then by name.
 */
function pick(candidates: Lang[], ext: string | null): Lang {
  const primary = (l: Lang) => (ext !== null && l.extensions?.[0]?.toLowerCase() === ext ? 1 : 0);
  return [...candidates].sort((a, b) => primary(b) - primary(a) || reach(b) - reach(a))[0];
}

/** The language of a path (by file name, then by the longest extension Linguist knows), or null. */
export function detectLanguage(path: string): { name: string; type: string } | null {
  index ??= buildIndex();
  const base = path.slice(path.lastIndexOf("/") + 1);
  const named = index.byFilename.get(base);
  if (named) return pick(named, null);
  const lower = base.toLowerCase();
  // `.d.ts`-style compound extensions first, then the last one.
  for (let i = lower.indexOf(".", 1); i !== -1; i = lower.indexOf(".", i + 1)) {
    const ext = lower.slice(i);
    const found = index.byExtension.get(ext);
    if (found) return pick(found, ext);
  }
  return null;
}

/**
 * `{ language: share }` over files with their sizes: shares in percent of the counted bytes, rounded
 * to two decimals, largest first (RepositoryLanguagesService, Entities via `to_h`).
 */
export function languageShares(files: { path: string; size: number }[]): Record<string, number> {
  const bytes = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const lang = detectLanguage(file.path);
    if (!lang || (lang.type !== "programming" && lang.type !== "markup")) continue;
    bytes.set(lang.name, (bytes.get(lang.name) ?? 0) + file.size);
    total += file.size;
  }
  if (total === 0) return {};
  const shares = [...bytes].map(([name, n]) => [name, Math.round((n / total) * 10000) / 100] as const);
  shares.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return Object.fromEntries(shares);
}
