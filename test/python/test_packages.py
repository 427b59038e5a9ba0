# Generic packages through python-gitlab (GitLab's lib/api/generic_packages.rb, packages.rb,
# group_packages.rb, package_files.rb): upload, download (whole, streamed, as an iterator), the
# package and its files in the lists, deletion.
import hashlib

import gitlab
import pytest

from support import unique


@pytest.fixture(scope="module")
def package_project(gl):
    created = gl.projects.create({"name": unique("py-packages")})
    yield created
    created.delete()


def test_upload_and_download(tmp_path, package_project):
    name = unique("hello-world")
    content = b"package content\n" * 100
    path = tmp_path / "hello.tar.gz"
    path.write_bytes(content)
    uploaded = package_project.generic_packages.upload(
        package_name=name, package_version="v1.0.0", file_name="hello.tar.gz", path=path
    )
    assert uploaded.message == "201 Created"
    assert uploaded.package_name == name

    data = package_project.generic_packages.download(package_name=name, package_version="v1.0.0", file_name="hello.tar.gz")
    assert data == content

    chunks = []
    package_project.generic_packages.download(
        package_name=name, package_version="v1.0.0", file_name="hello.tar.gz", streamed=True, action=chunks.append
    )
    assert b"".join(chunks) == content

    iterator = package_project.generic_packages.download(
        package_name=name, package_version="v1.0.0", file_name="hello.tar.gz", iterator=True
    )
    assert b"".join(iterator) == content


def test_package_listed_with_its_files(tmp_path, group, gl):
    project = gl.projects.create({"name": unique("py-grp-packages"), "namespace_id": group.id})
    try:
        name = unique("listed")
        for file_name, body in (("a.bin", b"first"), ("b.bin", b"second file")):
            path = tmp_path / file_name
            path.write_bytes(body)
            project.generic_packages.upload(package_name=name, package_version="1.2.3", file_name=file_name, path=path)

        packages = project.packages.list(package_name=name, get_all=True)
        assert [(p.name, p.version, p.package_type) for p in packages] == [(name, "1.2.3", "generic")]
        package = project.packages.get(packages[0].id)
        files = package.package_files.list(get_all=True)
        assert sorted(f.file_name for f in files) == ["a.bin", "b.bin"]
        sizes = {f.file_name: f.size for f in files}
        assert sizes == {"a.bin": 5, "b.bin": 11}
        sha256 = {f.file_name: f.file_sha256 for f in files}
        assert sha256["a.bin"] == hashlib.sha256(b"first").hexdigest()

        assert packages[0].id in [p.id for p in group.packages.list(get_all=True)]
        assert packages[0].id in [p.id for p in project.packages.list(package_type="generic", get_all=True)]

        package.delete()
        assert project.packages.list(package_name=name, get_all=True) == []
        with pytest.raises(gitlab.GitlabGetError) as error:
            project.generic_packages.download(package_name=name, package_version="1.2.3", file_name="a.bin")
        assert error.value.response_code == 404
    finally:
        project.delete()


def test_upload_refuses_a_bad_version(tmp_path, package_project):
    path = tmp_path / "x.bin"
    path.write_bytes(b"x")
    with pytest.raises(gitlab.GitlabUploadError) as error:
        package_project.generic_packages.upload(package_name="bad", package_version="not a version!", file_name="x.bin", path=path)
    assert error.value.response_code == 400


def test_download_of_a_missing_file_is_404(package_project):
    with pytest.raises(gitlab.GitlabGetError) as error:
        package_project.generic_packages.download(package_name=unique("none"), package_version="1.0.0", file_name="none.bin")
    assert error.value.response_code == 404
