# Releases through python-gitlab, after v3.12.0's tests/functional/api/test_releases.py: create (tagging
# the default branch), get, list, update, delete, and release links.
import gitlab
import pytest

from support import unique

RELEASE_NAME = "Demo Release"
RELEASE_DESCRIPTION = "release notes go here"
LINK_DATA = {"url": "https://example.com", "name": "link_name"}


@pytest.fixture
def release(project):
    """A release of a fresh tag on the default branch."""
    project.refresh()
    tag = unique("v1.0").replace("-", ".")
    created = project.releases.create(
        {"name": f"Release {tag}", "tag_name": tag, "description": "notes", "ref": project.default_branch}
    )
    return created


def test_create_project_release(project):
    project.refresh()  # the current default branch
    before = len(project.releases.list(get_all=True))
    tag = unique("v1.2.3").replace("-", ".")
    release = project.releases.create(
        {"name": RELEASE_NAME, "tag_name": tag, "description": RELEASE_DESCRIPTION, "ref": project.default_branch}
    )
    assert len(project.releases.list(get_all=True)) == before + 1
    assert project.releases.get(tag)
    assert release.name == RELEASE_NAME
    assert release.tag_name == tag
    assert release.description == RELEASE_DESCRIPTION
    # The tag was made at the default branch's head.
    assert project.tags.get(tag).commit["id"] == project.branches.get(project.default_branch).commit["id"]


def test_update_save_project_release(project, release):
    updated_description = f"{release.description} updated"
    release.description = updated_description
    release.save()

    release = project.releases.get(release.tag_name)
    assert release.description == updated_description


def test_delete_project_release(project, release):
    project.releases.delete(release.tag_name)
    assert release.tag_name not in [r.tag_name for r in project.releases.list(get_all=True)]
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        project.releases.get(release.tag_name)
    # Deleting the release keeps its tag.
    assert project.tags.get(release.tag_name)


def test_create_project_release_links(project, release):
    link = release.links.create(LINK_DATA)

    release = project.releases.get(release.tag_name)
    assert release.assets["links"][0]["url"] == LINK_DATA["url"]
    assert release.assets["links"][0]["name"] == LINK_DATA["name"]

    fetched = release.links.get(link.id)
    assert fetched.name == LINK_DATA["name"]
    fetched.name = "renamed"
    fetched.save()
    assert [l.name for l in release.links.list()] == ["renamed"]
    release.links.delete(link.id)
    assert release.links.list() == []
