import { requireUser } from "../kernel/auth";
import { router } from "../kernel/router";
import { metadata, version } from "../entities/version";

export const versionRoutes = router({ readUserScope: true });

/** GET /version (lib/api/version.rb): authenticated callers only. */
versionRoutes.get("/version", (c) => {
  requireUser(c);
  return c.json(version());
});

/** GET /metadata (lib/api/metadata.rb) */
versionRoutes.get("/metadata", (c) => {
  requireUser(c);
  return c.json(metadata());
});
