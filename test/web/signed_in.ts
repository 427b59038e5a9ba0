import { expect } from "vitest";
import type { TestUser } from "../helpers/world";
import { browser, setPassword } from "./support";

const PASSWORD = "correct horse battery";

/** A browser signed in as `user` through the sign-in form. */
export async function signedIn(user: TestUser) {
  await setPassword(user.id, PASSWORD);
  const b = browser();
  const res = await b.signIn(user.username, PASSWORD);
  expect(res.status).toBe(303);
  return b;
}
