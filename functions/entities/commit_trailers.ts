// Git trailers of a commit message, as `GET /repository/commits?trailers=true` shows them: Gitaly asks
// git for `%(trailers:unfold,separator=%x00)` and splits each entry at its first `:`
// (internal/git/trailerparser); GitLab turns the list into a hash, the last value of a key winning.
// The trailer block is found with git 2.39's rules (trailer.c: find_patch_start, find_trailer_start,
// find_separator): the last paragraph after the title, made only of `Token: value` lines (and their
// indented continuations), or at least one git-generated line and a quarter of trailer lines.
// Differs from git: `trailer.<token>.*` configuration does not exist here, and the trailing comment and
// `Conflicts:` lines that `ignore_non_trailer` skips are not skipped.

const GIT_GENERATED_PREFIXES = ["Signed-off-by: ", "(cherry picked from commit "];

const isBlank = (line: string) => line.trim() === "";

/** find_separator: the index of `:` after a token of letters, digits and `-` (and optional blanks); -1 if none. */
function separatorAt(line: string): number {
  let whitespaceFound = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === ":") return i;
    if (!whitespaceFound && /[A-Za-z0-9-]/.test(ch)) continue;
    if (i !== 0 && (ch === " " || ch === "\t")) {
      whitespaceFound = true;
      continue;
    }
    break;
  }
  return -1;
}

export function parseTrailers(message: string): Record<string, string> {
  let lines = message.split("\n");
  // find_patch_start: a `---` line ends the message.
  const patch = lines.findIndex((line) => /^---(\s|$)/.test(line));
  if (patch >= 0) lines = lines.slice(0, patch);
  // The first paragraph is the title and never holds trailers.
  let endOfTitle = 0;
  while (endOfTitle < lines.length && isBlank(lines[endOfTitle])) endOfTitle++;
  while (endOfTitle < lines.length && !isBlank(lines[endOfTitle])) endOfTitle++;

  let onlySpaces = true;
  let recognized = false;
  let trailerLines = 0;
  let nonTrailerLines = 0;
  let continuations = 0;
  let start = -1;
  for (let i = lines.length - 1; i >= endOfTitle; i--) {
    const line = lines[i];
    if (line.startsWith("#")) {
      nonTrailerLines += continuations;
      continuations = 0;
      continue;
    }
    if (isBlank(line)) {
      if (onlySpaces) continue;
      nonTrailerLines += continuations;
      if ((recognized && trailerLines * 3 >= nonTrailerLines) || (trailerLines > 0 && nonTrailerLines === 0)) start = i + 1;
      break;
    }
    onlySpaces = false;
    if (GIT_GENERATED_PREFIXES.some((prefix) => line.startsWith(prefix))) {
      trailerLines++;
      continuations = 0;
      recognized = true;
      continue;
    }
    if (separatorAt(line) >= 1) {
      trailerLines++;
      continuations = 0;
    } else if (/^\s/.test(line)) continuations++;
    else {
      nonTrailerLines += 1 + continuations;
      continuations = 0;
    }
  }
  if (start < 0) return {};

  // %(trailers:unfold): continuation lines join the line before with one space.
  const entries: string[] = [];
  for (const line of lines.slice(start)) {
    if (isBlank(line)) continue;
    if (/^\s/.test(line) && entries.length) entries[entries.length - 1] += ` ${line.trim()}`;
    else entries.push(line.trim());
  }
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const at = separatorAt(entry);
    if (at < 1) continue; // not a `Token: value` line (e.g. "(cherry picked from commit …)")
    out[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return out;
}
