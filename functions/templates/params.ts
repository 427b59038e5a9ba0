import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `GET /templates/licenses`: `popular` true lists the popular licenses, false the others. */
export const ListLicenses = z.object({ popular: p.bool().optional(), ...pageParams.shape });

/** `GET /templates/licenses/:name`: the placeholders' values. */
export const OneLicense = z.object({
  name: p.string(),
  project: p.string().optional(),
  fullname: p.string().optional(),
});

/** `GET /templates/:type` (gitignores, gitlab_ci_ymls, dockerfiles). */
export const ListTemplates = pageParams;

export const OneTemplate = z.object({ name: p.string() });

/**
 * lib/api/project_templates.rb `TEMPLATE_TYPES`. Differs from GitLab: `metrics_dashboard_ymls` (the
 * metrics dashboards, deprecated in 14.7) is not a valid value here.
 */
export const PROJECT_TEMPLATE_TYPES = ["dockerfiles", "gitignores", "gitlab_ci_ymls", "licenses", "issues", "merge_requests"] as const;

export const ListProjectTemplates = z.object({ type: p.oneOf(...PROJECT_TEMPLATE_TYPES), ...pageParams.shape });

export const OneProjectTemplate = z.object({
  type: p.oneOf(...PROJECT_TEMPLATE_TYPES),
  name: p.string(),
  // Chooses among custom templates of several projects of the same name: there are none here (see routes.ts).
  source_template_project_id: p.int().optional(),
  project: p.string().optional(),
  fullname: p.string().optional(),
});
