import { Hono } from "hono";
import type { AppEnv } from "../../kernel/env";
import { lockRoutes } from "./locks";
import { objectRoutes } from "./objects";

/** Git LFS beside smart HTTP: the batch API and object transfers, and the file locking API. */
export const lfsRoutes = new Hono<AppEnv>();
lfsRoutes.route("/", objectRoutes);
lfsRoutes.route("/", lockRoutes);
