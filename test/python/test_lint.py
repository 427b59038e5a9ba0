# CI lint through python-gitlab (GitLab's lib/api/lint.rb): the instance-wide POST /ci/lint and the
# project's GET and POST /projects/:id/ci/lint, including validate()'s GitlabCiLintError.
import gitlab
import pytest

VALID = """---
:test_job:
  :script: echo 1
"""

INVALID = """---
:test_job:
  :script: echo 1
  :foo: bar
"""


@pytest.fixture(scope="module")
def ci_project(project):
    project.files.create(
        {"file_path": ".gitlab-ci.yml", "branch": "main", "content": VALID, "commit_message": "Add CI [skip ci]"}
    )
    return project


def test_ci_lint_create(gl):
    result = gl.ci_lint.create({"content": VALID})
    assert result.status == "valid"
    assert result.errors == []


def test_ci_lint_create_invalid_with_merged_yaml(gl):
    result = gl.ci_lint.create({"content": INVALID, "include_merged_yaml": True})
    assert result.status == "invalid"
    assert result.errors == ["jobs:test_job config contains unknown keys: foo"]
    assert result.merged_yaml is None


def test_ci_lint_validate(gl):
    gl.ci_lint.validate({"content": VALID})
    with pytest.raises(gitlab.exceptions.GitlabCiLintError) as raised:
        gl.ci_lint.validate({"content": INVALID})
    assert "unknown keys: foo" in str(raised.value)


def test_project_ci_lint_get(ci_project):
    result = ci_project.ci_lint.get()
    assert result.valid is True
    assert result.merged_yaml.startswith("---\ntest_job:\n")


def test_project_ci_lint_get_dry_run_with_jobs(ci_project):
    result = ci_project.ci_lint.get(dry_run=True, include_jobs=True)
    assert result.valid is True
    assert [job["name"] for job in result.jobs] == ["test_job"]


def test_project_ci_lint_create(ci_project):
    result = ci_project.ci_lint.create({"content": VALID, "dry_run": True, "ref": "main"})
    assert result.valid is True
    result = ci_project.ci_lint.create({"content": INVALID})
    assert result.valid is False
    assert result.errors == ["jobs:test_job config contains unknown keys: foo"]


def test_project_ci_lint_validate(ci_project):
    ci_project.ci_lint.validate({"content": VALID})
    with pytest.raises(gitlab.exceptions.GitlabCiLintError):
        ci_project.ci_lint.validate({"content": INVALID})
