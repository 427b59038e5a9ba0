# Users through python-gitlab (GitLab's lib/api/users.rb): create, list filters, block/unblock,
# ban/unban, update, emails, custom attributes, impersonation tokens, memberships, delete.
from datetime import date, timedelta

import gitlab
import pytest

from support import PASSWORD, unique


def test_create_and_find_by_username(gl, make_user):
    created = make_user(bio="made by python-gitlab")
    assert created.state == "active"
    listed = gl.users.list(username=created.username)
    assert [u.id for u in listed] == [created.id]
    assert listed[0].email == created.email
    fetched = gl.users.get(created.id)
    assert fetched.username == created.username
    assert fetched.bio == "made by python-gitlab"


def test_duplicate_username_is_a_conflict(gl, user):
    with pytest.raises(gitlab.GitlabCreateError) as error:
        gl.users.create(
            {"email": f"{unique('other')}@example.com", "username": user.username, "name": "Dup", "password": PASSWORD}
        )
    assert error.value.response_code == 409
    assert error.value.error_message == "Username has already been taken"


def test_search_finds_both_users(gl, user, make_user):
    second = make_user(username=f"{user.username}_2", email=f"{user.username}.2@example.com")
    assert [u.id for u in gl.users.list(search=second.username)] == [second.id]
    assert {u.id for u in gl.users.list(search=user.username)} == {user.id, second.id}
    assert gl.users.list(search=unique("nobody")) == []


def test_block_and_unblock(gl, make_user):
    target = make_user()
    assert target.block() is True
    assert target.id in [u.id for u in gl.users.list(blocked=True, get_all=True)]
    assert gl.users.get(target.id).state == "blocked"
    # Blocking a blocked user answers 201 with no body: python-gitlab's None.
    assert target.block() is None
    assert target.unblock() is True
    assert gl.users.get(target.id).state == "active"
    # Unblocking an active user answers 201 false.
    assert target.unblock() is False


def test_ban_and_unban(gl, make_user):
    target = make_user()
    target.ban()
    assert gl.users.get(target.id).state == "banned"
    target.unban()
    assert gl.users.get(target.id).state == "active"


def test_deactivate_and_activate(gl, make_user):
    target = make_user()
    assert target.deactivate() is True
    assert gl.users.get(target.id).state == "deactivated"
    assert target.activate() is True
    assert gl.users.get(target.id).state == "active"


def test_update_bio_and_name(gl, user):
    user.bio = "updated bio"
    user.name = f"{user.username} renamed"
    user.save()
    fetched = gl.users.get(user.id)
    assert fetched.bio == "updated bio"
    assert fetched.name == f"{user.username} renamed"


def test_new_user_has_no_projects_or_events(make_user):
    fresh = make_user()
    assert fresh.projects.list() == []
    assert fresh.events.list() == []


def test_user_emails(user):
    address = f"{unique('second')}@example.com"
    email = user.emails.create({"email": address})
    assert email.email == address
    assert address in [e.email for e in user.emails.list()]
    email.delete()
    assert address not in [e.email for e in user.emails.list()]


def test_user_custom_attributes(gl, make_user):
    target = make_user()
    assert target.customattributes.list() == []
    value = unique("value")
    attr = target.customattributes.set("py_key", value)
    assert (attr.key, attr.value) == ("py_key", value)
    assert [u.id for u in gl.users.list(custom_attributes={"py_key": value})] == [target.id]
    target.customattributes.set("py_key", "second")
    assert target.customattributes.get("py_key").value == "second"
    target.customattributes.delete("py_key")
    assert target.customattributes.list() == []


def test_user_impersonation_tokens(user):
    expires = (date.today() + timedelta(days=4)).isoformat()
    token = user.impersonationtokens.create({"name": "py-impersonation", "scopes": ["api", "read_user"], "expires_at": expires})
    assert token.impersonation is True
    assert token.token
    assert token.id in [t.id for t in user.impersonationtokens.list(state="active")]
    token.delete()
    assert token.id not in [t.id for t in user.impersonationtokens.list(state="active")]
    assert token.id in [t.id for t in user.impersonationtokens.list(state="inactive")]


def test_user_memberships(gl, make_user):
    member = make_user()
    group = gl.groups.create({"name": unique("py-membership"), "path": unique("py-membership")})
    try:
        group.members.create({"user_id": member.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
        memberships = member.memberships.list()
        assert [(m.source_id, m.source_type, m.access_level) for m in memberships] == [
            (group.id, "Namespace", gitlab.const.AccessLevel.DEVELOPER)
        ]
        assert member.memberships.list(type="Project") == []
        with pytest.raises(gitlab.GitlabListError) as error:
            member.memberships.list(type="Invalid")
        assert error.value.response_code == 400
        assert "type does not have a valid value" in str(error.value)
    finally:
        group.delete()


def test_current_user_and_sudo(gl, user):
    assert gl.user.is_admin is True
    as_user = gl.users.get(user.id, sudo=user.username)
    assert as_user.id == user.id
    own = gitlab.Gitlab(gl.url, private_token=gl.private_token)
    own.auth()
    assert own.user.id == gl.user.id


def test_delete_user(gl):
    doomed = gl.users.create(
        {"email": f"{unique('doomed')}@example.com", "username": unique("doomed").replace("-", "_"), "name": "Doomed", "password": PASSWORD}
    )
    doomed.delete(hard_delete=True)
    with pytest.raises(gitlab.GitlabGetError) as error:
        gl.users.get(doomed.id)
    assert error.value.response_code == 404
