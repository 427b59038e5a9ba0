# Fixtures for the python-gitlab tests (test/e2e/python_gitlab.test.mjs runs them against `npm start`).
# EDGEFORGE_URL is the server's root (http://127.0.0.1:PORT), EDGEFORGE_TOKEN root's personal access
# token. Every object a test makes has a unique name, so the tests also run against a database that
# other runs share.
import os

import gitlab
import pytest

from support import PASSWORD, unique


@pytest.fixture(scope="session")
def gitlab_url() -> str:
    url = os.environ.get("EDGEFORGE_URL")
    if not url:
        raise RuntimeError("EDGEFORGE_URL is not set (test/e2e/python_gitlab.test.mjs sets it)")
    return url


@pytest.fixture(scope="session")
def root_token() -> str:
    token = os.environ.get("EDGEFORGE_TOKEN")
    if not token:
        raise RuntimeError("EDGEFORGE_TOKEN is not set (test/e2e/python_gitlab.test.mjs sets it)")
    return token


@pytest.fixture(scope="session")
def gl(gitlab_url, root_token) -> gitlab.Gitlab:
    client = gitlab.Gitlab(gitlab_url, private_token=root_token, timeout=30)
    client.auth()
    assert client.user.username == "root"
    return client


@pytest.fixture(scope="session")
def make_user(gl):
    """Creates users; each is hard-deleted at the end of the session."""
    made = []

    def _make(**extra):
        username = unique("pyuser").replace("-", "_")
        attrs = {
            "email": f"{username}@example.com",
            "username": username,
            "name": f"Py {username}",
            "password": PASSWORD,
            "skip_confirmation": True,
        }
        attrs.update(extra)
        created = gl.users.create(attrs)
        made.append(created)
        return created

    yield _make
    for created in made:
        try:
            created.delete(hard_delete=True)
        except gitlab.exceptions.GitlabDeleteError:
            pass


@pytest.fixture(scope="module")
def user(make_user):
    return make_user()


@pytest.fixture(scope="module")
def group(gl):
    path = unique("pygroup")
    created = gl.groups.create({"name": path, "path": path})
    yield created
    try:
        created.delete()
    except gitlab.exceptions.GitlabDeleteError:
        pass


@pytest.fixture(scope="module")
def project(gl):
    """A project with an initial commit on `main` (README.md)."""
    created = gl.projects.create({"name": unique("pyproject"), "initialize_with_readme": True})
    yield created
    try:
        created.delete()
    except gitlab.exceptions.GitlabDeleteError:
        pass


@pytest.fixture
def merge_request(project):
    """Makes a branch off the default branch with one commit and an open merge request for it."""

    def _make(source_branch: str, **extra):
        project.branches.create({"branch": source_branch, "ref": project.default_branch})
        project.files.create(
            {
                "file_path": f"{source_branch}.txt",
                "branch": source_branch,
                "content": f"content of {source_branch}\n",
                "commit_message": f"Add {source_branch}.txt",
            }
        )
        attrs = {
            "source_branch": source_branch,
            "target_branch": project.default_branch,
            "title": f"Merge {source_branch}",
        }
        attrs.update(extra)
        return project.mergerequests.create(attrs)

    return _make
