"""The ObjectStore port on S3 (MinIO, SeaweedFS, AWS) through the `minio` client.

Atomic writes: an S3 PUT of one object is atomic, a reader gets the old bytes or the new, never a
mix, and a failed PUT leaves the old object in place. Objects above the client's part size go up
as a multipart upload, which also becomes visible only when it completes. So `put_bytes` needs no
temp object and rename (S3 has no rename).
"""

from __future__ import annotations

import io

from minio import Minio
from minio.error import S3Error

from scicustom.adapters.object_keys import check_key

_MISSING = frozenset({"NoSuchKey", "NoSuchObject"})


class MinioObjectStore:
    def __init__(self, client: Minio, bucket: str) -> None:
        self.client = client
        self.bucket = bucket

    @classmethod
    def connect(cls, endpoint: str, access_key: str | None, secret_key: str | None, bucket: str, *,
                secure: bool = False, create_bucket: bool = True) -> MinioObjectStore:
        """A store on `bucket` at `endpoint` (host:port); creates the bucket when asked and absent."""
        client = Minio(endpoint, access_key=access_key, secret_key=secret_key, secure=secure)
        if create_bucket and not client.bucket_exists(bucket):
            client.make_bucket(bucket)
        return cls(client, bucket)

    def put_bytes(self, key: str, data: bytes) -> None:
        self.client.put_object(self.bucket, check_key(key), io.BytesIO(data), len(data),
                               content_type="application/octet-stream")

    def get_bytes(self, key: str) -> bytes:
        try:
            response = self.client.get_object(self.bucket, check_key(key))
        except S3Error as exc:
            if exc.code in _MISSING:
                raise KeyError(key) from None
            raise
        try:
            return response.read()
        finally:
            response.close()
            response.release_conn()

    def exists(self, key: str) -> bool:
        try:
            self.client.stat_object(self.bucket, check_key(key))
        except S3Error as exc:
            if exc.code in _MISSING:
                return False
            raise
        return True

    def list_keys(self, prefix: str) -> list[str]:
        objects = self.client.list_objects(self.bucket, prefix=prefix or None, recursive=True)
        return sorted(o.object_name for o in objects if o.object_name and not o.is_dir)

    def delete(self, key: str) -> None:
        # S3 DELETE of an absent key succeeds, which makes this idempotent like the filesystem store.
        self.client.remove_object(self.bucket, check_key(key))
