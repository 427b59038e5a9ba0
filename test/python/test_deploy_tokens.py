# Deploy tokens through python-gitlab, after v3.12.0's tests/functional/api/test_deploy_tokens.py:
# project and group tokens, the instance list (gl.deploytokens), get and delete.
import datetime

import gitlab
import pytest


def test_project_deploy_tokens(gl, project):
    today = datetime.date.today().isoformat()
    deploy_token = project.deploytokens.create(
        {"name": "foo", "username": "bar", "expires_at": today, "scopes": ["read_registry"]}
    )
    assert deploy_token in project.deploytokens.list()
    assert set(project.deploytokens.list()) <= set(gl.deploytokens.list(get_all=True))

    deploy_token = project.deploytokens.get(deploy_token.id)
    assert deploy_token.name == "foo"
    assert deploy_token.expires_at == f"{today}T00:00:00.000Z"
    assert deploy_token.scopes == ["read_registry"]
    assert deploy_token.username == "bar"

    deploy_token.delete()
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        project.deploytokens.get(deploy_token.id)


def test_group_deploy_tokens(gl, group):
    deploy_token = group.deploytokens.create({"name": "foo", "scopes": ["read_registry"]})

    assert deploy_token in group.deploytokens.list()
    assert set(group.deploytokens.list()) <= set(gl.deploytokens.list(get_all=True))

    deploy_token = group.deploytokens.get(deploy_token.id)
    assert deploy_token.name == "foo"
    assert deploy_token.scopes == ["read_registry"]
    assert deploy_token.username.startswith("gitlab+deploy-token-")

    deploy_token.delete()
    assert deploy_token not in group.deploytokens.list()


def test_deploy_token_bad_scope(project):
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as raised:
        project.deploytokens.create({"name": "bad", "scopes": ["api"]})
    assert raised.value.response_code == 400
