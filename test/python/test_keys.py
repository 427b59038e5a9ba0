# SSH keys through python-gitlab: a user's keys, a project's deploy keys, and the admin-only
# GET /keys/:id and GET /keys?fingerprint= (GitLab's lib/api/keys.rb, deploy_keys.rb, users.rb).
import gitlab
import pytest

from urllib.parse import urlsplit

from support import random_ssh_key, sha256_fingerprint, unique


def same_key(answered: str, sent: str) -> bool:
    """GitLab answers a user's key as its publishable key: type and data, then the owner's name and
    the instance's host instead of the comment it was given."""
    return answered.split()[:2] == sent.split()[:2]


def gl_host(obj) -> str:
    return urlsplit(obj.manager.gitlab.url).netloc


def test_user_key_create_list_get_delete(user):
    line = random_ssh_key("user-key@example.com")
    key = user.keys.create({"title": "laptop", "key": line})
    assert key.title == "laptop"
    assert same_key(key.key, line)
    assert key.key.endswith(f" {user.name} ({gl_host(user)})")
    assert key in user.keys.list()
    assert user.keys.get(key.id).key == key.key
    key.delete()
    assert key not in user.keys.list()


def test_current_user_keys(gl):
    line = random_ssh_key("root-key@example.com")
    key = gl.user.keys.create({"title": unique("root-key"), "key": line})
    try:
        assert key in gl.user.keys.list()
        assert gl.user.keys.get(key.id).title == key.title
    finally:
        key.delete()


def test_duplicate_user_key_is_refused(user, make_user):
    line = random_ssh_key("dup@example.com")
    key = user.keys.create({"title": "first", "key": line})
    other = make_user()
    with pytest.raises(gitlab.GitlabCreateError) as error:
        other.keys.create({"title": "second", "key": line})
    assert error.value.response_code == 400
    assert "has already been taken" in str(error.value)
    key.delete()


def test_key_by_id_and_by_fingerprint(gl, user):
    line = random_ssh_key("fingerprint@example.com")
    key = user.keys.create({"title": "by-fingerprint", "key": line})

    by_id = gl.keys.get(key.id)
    assert by_id.title == "by-fingerprint"
    assert by_id.key == key.key
    assert by_id.user["id"] == user.id

    by_fingerprint = gl.keys.get(fingerprint=sha256_fingerprint(line))
    assert by_fingerprint.id == key.id
    assert by_fingerprint.key == key.key
    assert by_fingerprint.user["username"] == user.username

    key.delete()
    # python-gitlab's keys.get(fingerprint=) does not wrap the error in GitlabGetError.
    with pytest.raises(gitlab.GitlabHttpError) as error:
        gl.keys.get(fingerprint=sha256_fingerprint(line))
    assert error.value.response_code == 404
    assert error.value.error_message == "404 Key Not Found"


def test_deploy_key_by_fingerprint_lists_its_projects(gl, project):
    line = random_ssh_key("deploy@example.com")
    key = project.keys.create({"title": "deployer", "key": line})
    try:
        found = gl.keys.get(fingerprint=sha256_fingerprint(line))
        assert found.title == "deployer"
        assert found.key == line
        assert [link["project_id"] for link in found.deploy_keys_projects] == [project.id]
    finally:
        key.delete()


def test_deploy_key_enable_in_another_project(gl, project):
    line = random_ssh_key("shared-deploy@example.com")
    key = project.keys.create({"title": "shared", "key": line, "can_push": True})
    assert key.can_push is True
    assert key in project.keys.list()

    other = gl.projects.create({"name": unique("py-deploy-other")})
    try:
        other.keys.enable(key.id)
        assert key.id in [k.id for k in other.keys.list()]
        found = gl.keys.get(fingerprint=sha256_fingerprint(line))
        assert sorted(link["project_id"] for link in found.deploy_keys_projects) == sorted([project.id, other.id])

        other.keys.delete(key.id)
        assert key.id not in [k.id for k in other.keys.list()]
        # Still enabled where it was made.
        assert project.keys.get(key.id).title == "shared"
    finally:
        other.delete()
        key.delete()


def test_deploy_key_update(project):
    key = project.keys.create({"title": "before", "key": random_ssh_key("upd@example.com")})
    key.title = "after"
    key.can_push = True
    key.save()
    fetched = project.keys.get(key.id)
    assert fetched.title == "after"
    assert fetched.can_push is True
    key.delete()


def test_instance_deploy_keys_list(gl, project):
    key = project.keys.create({"title": unique("listed"), "key": random_ssh_key("inst@example.com")})
    try:
        listed = gl.deploykeys.list(get_all=True)
        assert key.id in [k.id for k in listed]
    finally:
        key.delete()
