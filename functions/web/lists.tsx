/** @jsxImportSource hono/jsx */
import { visibilityName } from "../kernel/access";

/** A project as lists show it (explore, dashboard, group, profile): rows the projects finder returned. */
export type ListedProject = { id: number; fullPath: string; nameWithNamespace: string; description: string | null; visibilityLevel: number; starCount: number };

export function ProjectList(props: { projects: ListedProject[]; empty: string }) {
  if (!props.projects.length) return <p class="muted">{props.empty}</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Project</th>
          <th scope="col">Visibility</th>
          <th scope="col">Stars</th>
        </tr>
      </thead>
      <tbody>
        {props.projects.map((project) => (
          <tr>
            <td>
              <a href={`/${project.fullPath}`}>{project.nameWithNamespace}</a>
              {project.description && <div class="muted">{project.description}</div>}
            </td>
            <td>{visibilityName(project.visibilityLevel)}</td>
            <td>{project.starCount}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Previous and next links of an offset-paginated list (`?page=`). */
export function Pager(props: { path: string; page: number; more: boolean }) {
  if (props.page <= 1 && !props.more) return null;
  const sep = props.path.includes("?") ? "&" : "?";
  return (
    <nav aria-label="Pagination">
      <p>
        {props.page > 1 && <a href={`${props.path}${sep}page=${props.page - 1}`}>← Previous</a>} {props.more && <a href={`${props.path}${sep}page=${props.page + 1}`}>Next →</a>}
      </p>
    </nav>
  );
}
