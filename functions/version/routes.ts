import { requireUser } from "../kernel/auth";
import { router } from "../kernel/router";
import { Metadata, metadata, Version, version } from "../entities/version";

export const versionRoutes = router({ readUserScope: true });

/** GET /version (lib/api/version.rb): authenticated callers only. */
versionRoutes.get("/version", { response: Version }, (c) => {
  requireUser(c);
  return c.json(version());
});

/** GET /metadata (lib/api/metadata.rb) */
versionRoutes.get("/metadata", { response: Metadata }, (c) => {
  requireUser(c);
  return c.json(metadata());
});
