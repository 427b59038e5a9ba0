# LDAP and SAML group links through python-gitlab (after python-gitlab 3.12's functional `test_groups`
# LDAP and SAML cases): ldap_group_links create/list/delete by cn and by filter, ldap_sync, SAML group
# links create/get/list/delete, and a SAML user's access. The server of python_gitlab.test.mjs has no
# LDAP_SERVERS, so the directory itself (searches, the sync's result) is test/e2e/directory_and_imports.test.mjs.
import gitlab
import pytest
from gitlab.const import AccessLevel

from support import unique


def new_group(gl):
    path = unique("pydir")
    return gl.groups.create({"name": path, "path": path})


def test_group_ldap_links(gl):
    group = new_group(gl)
    try:
        with pytest.raises(gitlab.exceptions.GitlabListError) as none:
            group.ldap_group_links.list()
        assert none.value.response_code == 404

        cn = group.ldap_group_links.create({"provider": "ldapmain", "group_access": AccessLevel.DEVELOPER, "cn": "developers"})
        assert (cn.cn, cn.group_access, cn.provider) == ("developers", 30, "ldapmain")
        flt = group.ldap_group_links.create(
            {"provider": "ldapmain", "group_access": AccessLevel.MAINTAINER, "filter": "(memberOf=cn=some_group,ou=groups,dc=example,dc=org)"}
        )
        assert flt.cn is None and flt.filter.startswith("(memberOf=")

        with pytest.raises(gitlab.exceptions.GitlabCreateError) as duplicate:
            group.ldap_group_links.create({"provider": "ldapmain", "group_access": 10, "cn": "developers"})
        assert duplicate.value.response_code == 409

        links = group.ldap_group_links.list()
        assert sorted((link.cn or link.filter) for link in links) == ["(memberOf=cn=some_group,ou=groups,dc=example,dc=org)", "developers"]

        # python-gitlab deletes through DELETE /groups/:id/ldap_group_links?provider=…&cn=… (or filter=…).
        for link in links:
            link.delete()
        with pytest.raises(gitlab.exceptions.GitlabListError):
            group.ldap_group_links.list()

        # No LDAP server on this instance: the sync is GitLab's 404 (`group_sync_enabled?` is false).
        with pytest.raises(gitlab.exceptions.GitlabCreateError) as sync:
            group.ldap_sync()
        assert sync.value.response_code == 404
    finally:
        group.delete()


def test_group_saml_group_links(gl, make_user):
    group = new_group(gl)
    try:
        link = group.saml_group_links.create({"saml_group_name": "saml-group-1", "access_level": AccessLevel.GUEST})
        assert (link.name, link.access_level) == ("saml-group-1", 10)
        assert group.saml_group_links.get("saml-group-1").access_level == 10
        assert [l.name for l in group.saml_group_links.list()] == ["saml-group-1"]

        # A user provisioned with a SAML identity and SAML groups (the `saml_groups` custom attribute).
        user = make_user(provider="saml", extern_uid=unique("saml-uid"))
        user.customattributes.set("saml_groups", "saml-group-1,other")
        member = group.members.get(user.id)
        assert member.access_level == 10

        group.saml_group_links.get("saml-group-1").delete()
        with pytest.raises(gitlab.exceptions.GitlabGetError):
            group.saml_group_links.get("saml-group-1")
    finally:
        group.delete()
