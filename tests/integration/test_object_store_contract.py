"""ObjectStore contract on the filesystem store and on MinIO's client against SeaweedFS."""

from __future__ import annotations

import pytest
from minio import Minio
from minio.error import S3Error

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.minio_store import MinioObjectStore
from tests.support.contracts.object_store import ObjectStoreContract

pytestmark = pytest.mark.integration


class TestObjectStoreContract(ObjectStoreContract):
    @pytest.fixture(params=["filesystem", "minio"])
    def store(self, request, tmp_path, unique_name):
        if request.param == "filesystem":
            return FilesystemObjectStore(tmp_path / "store")
        s3 = request.getfixturevalue("s3_server")
        return MinioObjectStore.connect(s3.endpoint, s3.access_key, s3.secret_key, unique_name)


def test_connect_uses_an_existing_bucket_and_wrong_credentials_fail(s3_server, unique_name):
    first = MinioObjectStore.connect(s3_server.endpoint, s3_server.access_key, s3_server.secret_key, unique_name)
    first.put_bytes("k", b"v")
    again = MinioObjectStore.connect(s3_server.endpoint, s3_server.access_key, s3_server.secret_key, unique_name)
    assert again.get_bytes("k") == b"v"
    intruder = MinioObjectStore(Minio(s3_server.endpoint, access_key=s3_server.access_key, secret_key="wrong",
                                      secure=False), unique_name)
    with pytest.raises(S3Error, match=r"SignatureDoesNotMatch|AccessDenied"):
        intruder.get_bytes("k")
