# Push mirrors through python-gitlab (GitLab's lib/api/remote_mirrors.rb), after python-gitlab 3.12's
# functional `test_project_remote_mirrors`: create, enable and list; then what the credentials look like
# and deletion. The project's repository is empty, so enabling the mirror sends nothing anywhere.
import gitlab
import pytest
from gitlab.v4.objects import ProjectRemoteMirror


def test_project_remote_mirrors(project):
    mirror_url = "https://gitlab.example.com/root/mirror.git"

    mirror = project.remote_mirrors.create({"url": mirror_url})
    assert mirror.url == mirror_url
    assert mirror.enabled is False

    mirror.enabled = True
    mirror.save()

    mirror = project.remote_mirrors.list()[0]
    assert isinstance(mirror, ProjectRemoteMirror)
    assert mirror.url == mirror_url
    assert mirror.enabled is True
    assert mirror.update_status == "none"


def test_project_remote_mirror_credentials_and_delete(gl, project):
    mirror = project.remote_mirrors.create(
        {"url": "https://bot:t0ken@gitlab.example.com/root/other.git", "only_protected_branches": True}
    )
    assert mirror.url == "https://*****:*****@gitlab.example.com/root/other.git"
    assert mirror.only_protected_branches is True
    assert mirror.keep_divergent_refs is False

    mirror.keep_divergent_refs = True
    mirror.save()
    listed = [m for m in project.remote_mirrors.list() if m.id == mirror.id]
    assert listed[0].keep_divergent_refs is True
    assert "t0ken" not in listed[0].url

    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        project.remote_mirrors.create({"url": "ssh://git@gitlab.example.com/root/other.git"})
    assert refused.value.response_code == 400

    # python-gitlab 3.12's manager has no DeleteMixin: the endpoint (14.10+) through the client's HTTP layer.
    gl.http_delete(f"/projects/{project.id}/remote_mirrors/{mirror.id}")
    assert mirror.id not in [m.id for m in project.remote_mirrors.list()]
