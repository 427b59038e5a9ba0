// 0046 adds Devise lockable's columns to users (`failed_attempts`, `locked_at`) and the `web_sessions`
// table: a user made before it starts unlocked with no failed attempts and no session, and can still
// be read through the API.
export async function fill(db) {
  const { rows: [user] } = await db.query(
    `INSERT INTO users (username, name, email) VALUES ('before-0046', 'Before 0046', 'before-0046@example.com') RETURNING id`,
  );
  return { userId: user.id };
}

export async function check(api, { userId }, assert, db) {
  const res = await api("GET", `/users/${userId}`);
  assert.equal(res.status, 200);
  assert.equal(res.body.username, "before-0046");
  const { rows } = await db.query(`SELECT failed_attempts, locked_at FROM users WHERE id = $1`, [userId]);
  assert.deepEqual(rows[0], { failed_attempts: 0, locked_at: null });
  const sessions = await db.query(`SELECT count(*)::int AS n FROM web_sessions WHERE user_id = $1`, [userId]);
  assert.equal(sessions.rows[0].n, 0);
}
