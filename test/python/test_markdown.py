# Markdown rendering through python-gitlab (GitLab's lib/api/markdown.rb): plain and GitLab Flavored,
# with references resolved in a project's context.
import gitlab
import pytest


def test_markdown(gl):
    html = gl.markdown("foo")
    assert "foo" in html
    assert "<p" in html


def test_gfm_in_project_context(gl, project):
    issue = project.issues.create({"title": "Referenced issue"})
    html = gl.markdown(f"See #{issue.iid} :smile:", gfm=True, project=project.path_with_namespace)
    assert f"/{project.path_with_namespace}/-/issues/{issue.iid}" in html
    assert "gl-emoji" in html


def test_markdown_unknown_project(gl):
    with pytest.raises(gitlab.exceptions.GitlabMarkdownError) as raised:
        gl.markdown("x", gfm=True, project="no/such-project")
    assert raised.value.response_code == 404
