import type { PackageFile } from "../../db/schema";

/** A PyPI file with what its simple-API link shows: the version's `Requires-Python`. */
export type PypiFileRow = Pick<PackageFile, "fileName" | "fileSha256"> & { requiredPython: string };
/** One package name of a simple index, its normalized name and the newest version's `Requires-Python`. */
export type PypiNameRow = { name: string; normalizedName: string; requiredPython: string };

/** ERB::Util.html_escape */
function escape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
}

/** Packages::Pypi::SimplePresenterBase#body: the PEP 503 page, GitLab's whitespace included. */
function page(title: string, links: string[]): string {
  const t = escape(title);
  return `        <!DOCTYPE html>
        <html>
          <head>
            <title>Links for ${t}</title>
          </head>
          <body>
            <h1>Links for ${t}</h1>
            ${links.join("")}
          </body>
        </html>
`;
}

const link = (url: string, requiredPython: string, text: string) => `<a href="${url}" data-requires-python="${escape(requiredPython)}">${escape(text)}</a>`;

/**
 * Packages::Pypi::SimplePackageVersionsPresenter: every file of every version, linked to its download
 * URL with `#sha256=` (pip checks it). `filesUrl` is the project's or group's `…/packages/pypi/files`.
 */
export function pypiSimplePackage(name: string, files: PypiFileRow[], filesUrl: string): string {
  return page(
    name,
    files.map((f) => link(`${filesUrl}/${f.fileSha256}/${encodeURIComponent(f.fileName)}#sha256=${f.fileSha256}`, f.requiredPython, f.fileName)),
  );
}

/** Packages::Pypi::SimpleIndexPresenter: one link per package name, titled with the project's or group's name. */
export function pypiSimpleIndex(title: string, names: PypiNameRow[], simpleUrl: string): string {
  return page(
    title,
    names.map((n) => link(`${simpleUrl}/${n.normalizedName}`, n.requiredPython, n.name)),
  );
}
