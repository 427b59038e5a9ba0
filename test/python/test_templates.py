# File templates through python-gitlab (GitLab's lib/api/templates.rb and project_templates.rb): the
# instance's .gitignore, CI/CD YAML, Dockerfile and license templates, and a project's issue and merge
# request templates read from its repository.
import datetime

import gitlab
import pytest

from support import unique


def test_gitignores(gl):
    names = [t.name for t in gl.gitignores.list(get_all=True)]
    assert {"Node", "Python", "Go", "Ruby", "Java", "Rust"} <= set(names)
    node = gl.gitignores.get("Node")
    assert node.name == "Node"
    assert "node_modules/" in node.content


def test_gitlab_ci_ymls(gl):
    keys = [t.key for t in gl.gitlabciymls.list(get_all=True)]
    assert {"Nodejs", "Python", "Go", "Docker"} <= set(keys)
    nodejs = gl.gitlabciymls.get("Nodejs")
    assert "script:" in nodejs.content


def test_dockerfiles(gl):
    assert gl.dockerfiles.list()
    node = gl.dockerfiles.get("Node")
    assert node.content.startswith("FROM node")


def test_licenses_list_and_popular(gl):
    licenses = gl.licenses.list(get_all=True)
    assert "mit" in [lic.key for lic in licenses]
    popular = gl.licenses.list(popular=True, get_all=True)
    assert sorted(lic.key for lic in popular) == ["apache-2.0", "gpl-3.0", "mit"]
    assert all(lic.popular for lic in popular)


def test_license_placeholders(gl):
    license = gl.licenses.get("bsd-2-clause", project="mytestproject", fullname="mytestfullname")
    year = str(datetime.datetime.now(datetime.timezone.utc).year)
    assert f"Copyright (c) {year}, mytestfullname" in license.content
    assert license.name == "BSD 2-Clause \"Simplified\" License"


def test_missing_templates(gl):
    with pytest.raises(gitlab.exceptions.GitlabGetError) as raised:
        gl.gitignores.get("NoSuchLanguage")
    assert raised.value.response_code == 404
    assert "404 gitignore Not Found" in str(raised.value)
    with pytest.raises(gitlab.exceptions.GitlabGetError) as raised:
        gl.licenses.get("no-such-license")
    assert "404 License Not Found" in str(raised.value)


def test_project_templates(gl, project):
    branch = project.default_branch
    project.files.create(
        {
            "file_path": ".gitlab/issue_templates/Bug.md",
            "branch": branch,
            "content": "## Steps to reproduce\n",
            "commit_message": "Add an issue template",
        }
    )
    project.files.create(
        {
            "file_path": ".gitlab/merge_request_templates/Default.md",
            "branch": branch,
            "content": "## Why\n",
            "commit_message": "Add a merge request template",
        }
    )
    base = f"/projects/{project.id}/templates"
    assert gl.http_list(f"{base}/issues", get_all=True) == [{"key": "Bug", "name": "Bug"}]
    assert gl.http_get(f"{base}/issues/Bug") == {"name": "Bug", "content": "## Steps to reproduce\n"}
    assert gl.http_get(f"{base}/merge_requests/Default")["content"] == "## Why\n"
    assert {"key": "Node", "name": "Node"} in gl.http_list(f"{base}/gitignores", get_all=True)
    mit = gl.http_get(f"{base}/licenses/mit", query_data={"fullname": "Py Tester"})
    assert "Py Tester" in mit["content"]
    with pytest.raises(gitlab.exceptions.GitlabHttpError) as raised:
        gl.http_get(f"{base}/issues/{unique('missing')}")
    assert raised.value.response_code == 404
    with pytest.raises(gitlab.exceptions.GitlabHttpError) as raised:
        gl.http_get(f"{base}/labels")
    assert raised.value.response_code == 400
