# Pages domains through python-gitlab, after python-gitlab 3.12's functional test
# `test_project_pages_domains` (tests/functional/api/test_projects.py): a project's domain is created,
# listed in the project's and the instance's lists, read back, and deleted (lib/api/pages_domains.rb).
import gitlab
import pytest

from support import unique


def test_project_pages_domains(gl, project):
    name = f"{unique('pages')}.example.org".lower()
    domain = project.pagesdomains.create({"domain": name})
    assert domain.verified is False
    assert len(domain.verification_code) == 32
    assert domain in project.pagesdomains.list()
    assert name in [d.domain for d in gl.pagesdomains.list(iterator=True)]

    domain = project.pagesdomains.get(name)
    assert domain.domain == name
    assert domain.url == f"http://{name}"

    domain.auto_ssl_enabled = True
    domain.save()
    assert project.pagesdomains.get(name).auto_ssl_enabled is True

    domain.delete()
    assert domain not in project.pagesdomains.list()
    with pytest.raises(gitlab.exceptions.GitlabGetError) as raised:
        project.pagesdomains.get(name)
    assert raised.value.response_code == 404


def test_pages_domain_taken(gl, project):
    name = f"{unique('taken')}.example.org".lower()
    project.pagesdomains.create({"domain": name})
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as raised:
        project.pagesdomains.create({"domain": name})
    assert raised.value.response_code == 400
    project.pagesdomains.delete(name)
