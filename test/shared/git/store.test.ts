import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../functions/kernel/db";
import { utf8 } from "../../../functions/shared/git/pure/bytes";
import { blobObject, EMPTY_BLOB, EMPTY_TREE, treeObject } from "../../../functions/shared/git/pure/objects";
import { existingObjects, readObjects, writeObjects } from "../../../functions/shared/git/store/objects";

const pool = () => 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

describe("object store", () => {
  it("writes objects once and reads them back in bulk", async () => {
    const { db, pool: p } = createDb(env as never);
    try {
      const poolId = pool();
      const empty = await blobObject(new Uint8Array());
      const hello = await blobObject(utf8.encode("hello\n"));
      const tree = await treeObject([]);
      expect(empty.oid).toBe(EMPTY_BLOB);
      expect(tree.oid).toBe(EMPTY_TREE);
      await writeObjects(db, poolId, [empty, hello, tree, hello]);
      await writeObjects(db, poolId, [hello]);
      const found = await readObjects(db, poolId, [hello.oid, empty.oid, tree.oid, "0".repeat(40)]);
      expect(found.size).toBe(3);
      expect(new TextDecoder().decode(found.get(hello.oid)!.body)).toBe("hello\n");
      expect(found.get(tree.oid)!.type).toBe("tree");
      expect([...(await existingObjects(db, poolId, [hello.oid, "1".repeat(40)]))]).toEqual([hello.oid]);
    } finally {
      await p.end();
    }
  });
});
